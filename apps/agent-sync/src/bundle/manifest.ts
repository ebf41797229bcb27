// The signed bundle as received from the API, and the manifest it carries.
import { z } from 'zod';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const manifestSchema = z.object({
  format: z.literal(1),
  group: z.object({ id: z.string(), name: z.string() }),
  policyId: z.string(),
  policyVersion: z.number().int(),
  policyVersionId: z.string(),
  revision: z.number().int().min(1),
  issuedAt: z.string(),
  requirements: z.object({ content: z.string(), sha256: hex64, size: z.number().int().min(0) }),
  files: z.array(
    z.object({
      path: z.string().min(1).max(1024),
      sha256: hex64,
      size: z.number().int().min(0),
      mode: z.number().int().min(0).max(0o777),
      content: z.string(),
    }),
  ),
});
export type Manifest = z.infer<typeof manifestSchema>;

export const signedBundleSchema = z.object({
  manifest: z.string().min(2),
  signature: z.string().min(1),
  keyId: z.string().min(1),
  digest: z.string().optional(),
  revision: z.number().int().optional(),
  releaseId: z.string().optional(),
});
export type SignedBundle = z.infer<typeof signedBundleSchema>;
