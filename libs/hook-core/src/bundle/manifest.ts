// The signed bundle manifest (what a group's endpoints must hold on disk), its canonical text and digest.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_SHADOW_GRACE_MS } from '../engine/shadow-budget';
import { canonicalJson } from '../trust/canonical-json';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');

/** Largest accepted length of one manifest path (the content rules apply tighter limits). */
const MANIFEST_PATH_MAX = 4096;

/** One managed file of a bundle: path relative to managed_dir, digest, size, POSIX mode and base64 content. */
export const manifestFileSchema = z.object({
  path: z.string().min(1).max(MANIFEST_PATH_MAX),
  sha256: hex64,
  size: z.number().int().min(0),
  mode: z.number().int().min(0).max(0o777),
  /** File content, base64. */
  content: z.string(),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

/** The manifest a bundle signs (format 1). */
export const bundleManifestSchema = z.object({
  format: z.literal(1),
  group: z.object({ id: z.string(), name: z.string() }),
  policyId: z.string(),
  policyVersion: z.number().int(),
  policyVersionId: z.string(),
  revision: z.number().int().min(1),
  issuedAt: z.string(),
  requirements: z.object({ content: z.string(), sha256: hex64, size: z.number().int().min(0) }),
  files: z.array(manifestFileSchema),
  /**
   * Set on a shadow bundle only (issue 27): the shadow release it delivers. Its signature also covers the shadow
   * signing context (bundle/shadow.ts), so a shadow bundle never verifies as a managed one, nor the reverse.
   */
  shadow: z
    .object({
      releaseId: z.string().min(1).max(200),
      /** The grace its hooks get after the enforced hooks are done (ms; the engine's default when absent). */
      budgetMs: z.number().int().min(0).max(MAX_SHADOW_GRACE_MS).optional(),
    })
    .strict()
    .optional(),
});
export type BundleManifest = z.infer<typeof bundleManifestSchema>;

/** A bundle as served by `GET /v1/agent/bundle`: the manifest text, its Ed25519 signature and the signing key id. */
export const signedBundleSchema = z.object({
  manifest: z.string().min(2),
  signature: z.string().min(1),
  keyId: z.string().min(1),
  digest: z.string().optional(),
  revision: z.number().int().optional(),
  releaseId: z.string().optional(),
});
export type SignedBundle = z.infer<typeof signedBundleSchema>;

/** Inputs of buildManifest. */
export interface BuildManifestInput {
  group: { id: string; name: string };
  policyId: string;
  policyVersion: number;
  policyVersionId: string;
  revision: number;
  issuedAt: Date;
  requirementsToml: string;
  files: ReadonlyArray<{ path: string; content: Uint8Array; mode: number }>;
  /** A shadow bundle's release (its requirements are the shadow form of the version's: shadowRequirementsToml) and
   *  the grace its hooks get (ms). */
  shadow?: { releaseId: string; budgetMs?: number };
}

// Lowercase hex SHA-256 of bytes or UTF-8 text.
function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Builds the manifest object (files sorted by path, modes reduced to permission bits). */
export function buildManifest(input: BuildManifestInput): BundleManifest {
  const req = Buffer.from(input.requirementsToml, 'utf8');
  return {
    format: 1,
    group: input.group,
    policyId: input.policyId,
    policyVersion: input.policyVersion,
    policyVersionId: input.policyVersionId,
    revision: input.revision,
    issuedAt: input.issuedAt.toISOString(),
    requirements: { content: input.requirementsToml, sha256: sha256(req), size: req.length },
    files: [...input.files]
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .map((f) => ({
        path: f.path,
        sha256: sha256(f.content),
        size: f.content.length,
        mode: f.mode & 0o777,
        content: Buffer.from(f.content).toString('base64'),
      })),
    ...(input.shadow
      ? {
          shadow: {
            releaseId: input.shadow.releaseId,
            ...(input.shadow.budgetMs !== undefined ? { budgetMs: input.shadow.budgetMs } : {}),
          },
        }
      : {}),
  };
}

/** Canonical text of a manifest (sorted keys, compact): the exact bytes that are signed. */
export function serializeManifest(manifest: BundleManifest): string {
  return canonicalJson(manifest);
}

/** The bundle digest (the ETag): `sha256:` + hex SHA-256 of the manifest text. */
export function manifestDigest(text: string): string {
  return 'sha256:' + sha256(text);
}
