// Verifies a signed bundle before anything is written: signature by a trusted key, no replay, hashes, sizes, the
// content rules, and requirements.toml as this machine's engine reads it. One implementation: the agent verifies
// with it, the tests of the API's bundles too.
import { parse as parseToml } from 'smol-toml';
import { formatPath } from '../config/diagnostics';
import { managedLayerRefusal } from '../config/managed';
import { CONTRACT_VERSION } from '../policy/contract';
import { HOOK_CORE_VERSION } from '../version';
import { verifySignedText } from './assignment';
import { fileSha256 as sha256 } from './version-digest';
import { type BundleLayer, checkBundleContent, type ContentProblem } from './content';
import { bundleSigningText } from './shadow';
import type { TrustedKey } from './key-list';
import {
  type BundleManifest,
  bundleManifestSchema,
  manifestDigest,
  type SignedBundle,
  signedBundleSchema,
} from './manifest';

/** A managed file of a verified bundle, decoded. */
export interface VerifiedFile {
  path: string;
  sha256: string;
  mode: number;
  content: Buffer;
}

/** A bundle that passed every check, with its decoded content. */
export interface VerifiedBundle {
  raw: SignedBundle;
  manifest: BundleManifest;
  digest: string;
  revision: number;
  requirements: Buffer;
  files: VerifiedFile[];
  /** `[hooks] managed_dir` (or `windows_managed_dir` on Windows) from the requirements; null when absent. */
  managedDir: string | null;
  /** The layer it was verified for; a shadow bundle names its release (signed). */
  layer: BundleLayer;
  shadowReleaseId: string | null;
}

/** A bundle that must not be applied; the message says why. */
export class BundleRejected extends Error {
  constructor(
    message: string,
    readonly revision: number | null = null,
  ) {
    super(message);
    this.name = 'BundleRejected';
  }
}

type HooksTable = { managed_dir?: unknown; windows_managed_dir?: unknown } | undefined;

// The [hooks] table of requirements TOML text (throws on a TOML syntax error).
function hooksTableOf(toml: string): HooksTable {
  const hooks = (parseToml(toml) as { hooks?: unknown }).hooks;
  return typeof hooks === 'object' && hooks !== null && !Array.isArray(hooks) ? hooks : undefined;
}

// Reads managed_dir for the platform from requirements TOML text.
export function managedDirOf(toml: string, platform: NodeJS.Platform = process.platform): string | null {
  const hooks = hooksTableOf(toml);
  const value = platform === 'win32' ? hooks?.windows_managed_dir : hooks?.managed_dir;
  return typeof value === 'string' && value.length > 0 ? value : null;
}

// One line naming every content problem (`files[2].path: …; hooks.managed_dir: …`).
function describeProblems(problems: ContentProblem[]): string {
  const shown = problems
    .slice(0, 5)
    .map((p) => `${p.where.length > 0 ? formatPath(p.where).replace(/^\$\.?/, '') : 'bundle'}: ${p.message}`);
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  return shown.join('; ') + more;
}

// The other layer than this one.
const otherLayer = (layer: BundleLayer): BundleLayer => (layer === 'shadow' ? 'managed' : 'shadow');

// Checks everything that can be checked without the disk; throws BundleRejected naming the problem. `layer` is the
// layer the bundle is to be applied as: its signature must be of that layer (domain-separated), its manifest of that
// kind (a shadow bundle names its release) and its content within that layer's rules.
export function verifyBundle(
  input: unknown,
  trusted: readonly TrustedKey[],
  appliedRevision: number | null,
  appliedDigest: string | null,
  platform: NodeJS.Platform = process.platform,
  layer: BundleLayer = 'managed',
): VerifiedBundle {
  const shape = signedBundleSchema.safeParse(input);
  if (!shape.success) throw new BundleRejected(`bundle: not a signed bundle (${shape.error.issues[0]?.message})`);
  const raw = shape.data;
  if (!trusted.some((k) => k.kid === raw.keyId))
    throw new BundleRejected(`bundle: signed by untrusted key ${raw.keyId}`);
  if (!verifySignedText(bundleSigningText(raw.manifest, layer), raw.signature, raw.keyId, trusted)) {
    if (verifySignedText(bundleSigningText(raw.manifest, otherLayer(layer)), raw.signature, raw.keyId, trusted)) {
      throw new BundleRejected(
        `bundle: signed as a ${otherLayer(layer)} bundle, refused as the ${layer} layer (a shadow release never ` +
          'becomes the enforced policy, nor the reverse)',
      );
    }
    throw new BundleRejected(`bundle: bad signature (key ${raw.keyId})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.manifest);
  } catch {
    throw new BundleRejected('bundle: manifest is not JSON');
  }
  const parsed = bundleManifestSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new BundleRejected(`manifest: ${i?.path.join('.')}: ${i?.message}`);
  }
  const manifest = parsed.data;
  const digest = manifestDigest(raw.manifest);
  const revision = manifest.revision;
  if (layer === 'managed' && manifest.shadow !== undefined)
    throw new BundleRejected('manifest: a shadow bundle is not the managed layer', revision);
  if (layer === 'shadow' && manifest.shadow === undefined)
    throw new BundleRejected('manifest: not a shadow bundle (it names no shadow release)', revision);
  const shadowReleaseId = manifest.shadow?.releaseId ?? null;
  if (raw.releaseId !== undefined && shadowReleaseId !== null && raw.releaseId !== shadowReleaseId) {
    throw new BundleRejected(
      `bundle: served as release ${raw.releaseId}, but its signed manifest is of shadow release ${shadowReleaseId}`,
      revision,
    );
  }
  if (appliedRevision !== null && revision < appliedRevision) {
    throw new BundleRejected(
      `manifest: revision ${revision} is older than the applied revision ${appliedRevision} (replay)`,
      revision,
    );
  }
  if (appliedRevision !== null && revision === appliedRevision && appliedDigest && digest !== appliedDigest) {
    throw new BundleRejected(`manifest: revision ${revision} is already applied with different content`, revision);
  }
  const requirements = Buffer.from(manifest.requirements.content, 'utf8');
  if (requirements.length !== manifest.requirements.size || sha256(requirements) !== manifest.requirements.sha256) {
    throw new BundleRejected('manifest: requirements.toml does not match its sha256/size', revision);
  }
  // The content rules every version passed at authoring (hook-core's one implementation), checked again here.
  let hooks: HooksTable;
  try {
    hooks = hooksTableOf(manifest.requirements.content);
  } catch (err) {
    throw new BundleRejected(`requirements.toml: ${err instanceof Error ? err.message : String(err)}`, revision);
  }
  const problems = checkBundleContent(
    {
      managedDir: hooks?.managed_dir,
      windowsManagedDir: hooks?.windows_managed_dir,
      files: manifest.files,
      requirementsBytes: requirements.length,
    },
    { layer },
  );
  if (problems.length > 0) throw new BundleRejected(`bundle content: ${describeProblems(problems)}`, revision);
  // Version skew: what this machine's engine would not run as written (the layer failing closed, or a managed hook it
  // cannot read) is refused before the switch, whatever the server's hook-core accepted.
  const refusal = managedLayerRefusal(manifest.requirements.content, 'requirements.toml');
  if (refusal !== undefined) {
    throw new BundleRejected(
      `this agent's engine (hook-core ${HOOK_CORE_VERSION}, contract ${CONTRACT_VERSION}) would not run the bundle: ${refusal}`,
      revision,
    );
  }
  const files: VerifiedFile[] = [];
  for (const f of manifest.files) {
    const content = Buffer.from(f.content, 'base64');
    if (content.length !== f.size) {
      throw new BundleRejected(
        `manifest: files[${JSON.stringify(f.path)}]: size ${content.length} ≠ ${f.size}`,
        revision,
      );
    }
    if (sha256(content) !== f.sha256) {
      throw new BundleRejected(`manifest: files[${JSON.stringify(f.path)}]: sha256 mismatch`, revision);
    }
    files.push({ path: f.path, sha256: f.sha256, mode: f.mode, content });
  }
  const value = platform === 'win32' ? hooks?.windows_managed_dir : hooks?.managed_dir;
  const managedDir = typeof value === 'string' ? value : null;
  // No managed directory for this platform: the files are for the other platforms' agents.
  const common = { raw, manifest, digest, revision, requirements, managedDir, layer, shadowReleaseId };
  if (managedDir === null) return { ...common, files: [] };
  return { ...common, files };
}

// Verifies a shadow bundle (verifyBundle for the shadow layer; replay floors are the caller's).
export function verifyShadowBundle(
  input: unknown,
  trusted: readonly TrustedKey[],
  platform: NodeJS.Platform = process.platform,
): VerifiedBundle {
  return verifyBundle(input, trusted, null, null, platform, 'shadow');
}
