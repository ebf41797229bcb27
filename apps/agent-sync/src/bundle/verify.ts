// Verifies a bundle before anything is written: signature by a trusted key, no replay, hashes, sizes, safe paths.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import {
  type BundleManifest,
  bundleManifestSchema,
  manifestDigest,
  type SignedBundle,
  signedBundleSchema,
  type TrustedKey,
} from '@hookwarden/hook-core';
import { unsafePathReason } from './paths';

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

// Reads managed_dir for the platform from requirements TOML text.
export function managedDirOf(toml: string, platform: NodeJS.Platform = process.platform): string | null {
  const doc = parseToml(toml) as { hooks?: { managed_dir?: unknown; windows_managed_dir?: unknown } };
  const value = platform === 'win32' ? doc.hooks?.windows_managed_dir : doc.hooks?.managed_dir;
  return typeof value === 'string' && value.length > 0 ? value : null;
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
  const seen = new Set<string>();
  const files: VerifiedFile[] = [];
  for (const f of manifest.files) {
    const why = unsafePathReason(f.path);
    if (why) throw new BundleRejected(`manifest: files[${JSON.stringify(f.path)}]: ${why}`, revision);
    const lower = f.path.toLowerCase();
    if (seen.has(lower))
      throw new BundleRejected(`manifest: files[${JSON.stringify(f.path)}]: duplicate path`, revision);
    seen.add(lower);
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
  // A file that is a prefix directory of another (a and a/b) cannot both exist.
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (seen.has(parts.slice(0, i).join('/').toLowerCase())) {
        throw new BundleRejected(`manifest: files[${JSON.stringify(f.path)}]: a parent is also a file`, revision);
      }
    }
  }
  let managedDir: string | null;
  try {
    managedDir = managedDirOf(manifest.requirements.content, platform);
  } catch (err) {
    throw new BundleRejected(`requirements.toml: ${err instanceof Error ? err.message : String(err)}`, revision);
  }
  if (managedDir !== null) {
    const absolute = platform === 'win32' ? /^[A-Za-z]:[\\/]/.test(managedDir) : managedDir.startsWith('/');
    if (!absolute)
      throw new BundleRejected(`requirements.toml: hooks.managed_dir must be absolute (got ${managedDir})`, revision);
    if (managedDir.split(/[\\/]/).includes('..'))
      throw new BundleRejected('requirements.toml: hooks.managed_dir contains ..', revision);
  }
  if (files.length > 0 && managedDir === null) {
    throw new BundleRejected(
      'requirements.toml: the bundle ships managed files but sets no hooks.managed_dir',
      revision,
    );
  }
  return { raw, manifest, digest, revision, requirements, files, managedDir };
}
