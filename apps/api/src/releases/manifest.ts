// The signed bundle manifest: what a group's endpoints must hold on disk, serialized canonically.
import { createHash } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';

export interface ManifestFile {
  path: string;
  sha256: string;
  size: number;
  mode: number;
  /** File content, base64. */
  content: string;
}

export interface BundleManifest {
  format: 1;
  group: { id: string; name: string };
  policyId: string;
  policyVersion: number;
  policyVersionId: string;
  revision: number;
  issuedAt: string;
  requirements: { content: string; sha256: string; size: number };
  files: ManifestFile[];
}

export interface SignedBundle {
  manifest: string;
  signature: string;
  keyId: string;
  digest: string;
}

// Lowercase hex SHA-256 of bytes or UTF-8 text.
export function sha256Hex(data: string | Buffer | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

// Builds the manifest object (files sorted by path).
export function buildManifest(input: {
  group: { id: string; name: string };
  policyId: string;
  policyVersion: number;
  policyVersionId: string;
  revision: number;
  issuedAt: Date;
  requirementsToml: string;
  files: Array<{ path: string; content: Uint8Array; mode: number }>;
}): BundleManifest {
  const req = Buffer.from(input.requirementsToml, 'utf8');
  return {
    format: 1,
    group: input.group,
    policyId: input.policyId,
    policyVersion: input.policyVersion,
    policyVersionId: input.policyVersionId,
    revision: input.revision,
    issuedAt: input.issuedAt.toISOString(),
    requirements: { content: input.requirementsToml, sha256: sha256Hex(req), size: req.length },
    files: [...input.files]
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((f) => ({
        path: f.path,
        sha256: sha256Hex(f.content),
        size: f.content.length,
        mode: f.mode & 0o777,
        content: Buffer.from(f.content).toString('base64'),
      })),
  };
}

// Canonical text of a manifest (sorted keys, compact): the exact bytes that are signed.
export function serializeManifest(manifest: BundleManifest): string {
  return canonicalJson(manifest);
}

// The bundle digest (the ETag): sha256 of the canonical manifest text.
export function manifestDigest(text: string): string {
  return 'sha256:' + sha256Hex(text);
}
