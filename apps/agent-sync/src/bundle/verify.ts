// Verifies a bundle before anything is written: signature by a trusted key, no replay, hashes, sizes, safe paths, and
// requirements.toml as this machine's engine reads it.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import {
  type BundleManifest,
  bundleManifestSchema,
  checkBundleContent,
  type ContentProblem,
  CONTRACT_VERSION,
  HOOK_CORE_VERSION,
  managedLayerRefusal,
  formatPath,
  manifestDigest,
  type SignedBundle,
  signedBundleSchema,
  type TrustedKey,
} from '@hookwarden/hook-core';

export interface VerifiedFile {
  path: string;
  sha256: string;
  mode: number;
  content: Buffer;
}

export interface VerifiedBundle {
  raw: SignedBundle;
  manifest: BundleManifest;
  digest: string;
  revision: number;
  requirements: Buffer;
  files: VerifiedFile[];
  /** `[hooks] managed_dir` (or `windows_managed_dir` on Windows) from the requirements; null when absent. */
  managedDir: string | null;
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

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

// The bundle digest (same as the server's ETag): sha256 of the manifest text.
export const digestOf = manifestDigest;

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

// Checks everything that can be checked without the disk; throws BundleRejected naming the problem.
export function verifyBundle(
  input: unknown,
  trusted: TrustedKey[],
  appliedRevision: number | null,
  appliedDigest: string | null,
  platform: NodeJS.Platform = process.platform,
): VerifiedBundle {
  const shape = signedBundleSchema.safeParse(input);
  if (!shape.success) throw new BundleRejected(`bundle: not a signed bundle (${shape.error.issues[0]?.message})`);
  const raw = shape.data;
  const key = trusted.find((k) => k.kid === raw.keyId);
  if (!key) throw new BundleRejected(`bundle: signed by untrusted key ${raw.keyId}`);
  let ok = false;
  try {
    ok = verify(
      null,
      Buffer.from(raw.manifest, 'utf8'),
      createPublicKey(key.publicKeyPem),
      Buffer.from(raw.signature, 'base64'),
    );
  } catch {
    ok = false;
  }
  if (!ok) throw new BundleRejected(`bundle: bad signature (key ${raw.keyId})`);
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
  const digest = digestOf(raw.manifest);
  const revision = manifest.revision;
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
  const problems = checkBundleContent({
    managedDir: hooks?.managed_dir,
    windowsManagedDir: hooks?.windows_managed_dir,
    files: manifest.files,
    requirementsBytes: requirements.length,
  });
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
  if (managedDir === null) return { raw, manifest, digest, revision, requirements, files: [], managedDir };
  return { raw, manifest, digest, revision, requirements, files, managedDir };
}
