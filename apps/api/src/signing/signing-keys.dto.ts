// Request/response schemas of the bundle-signing key admin routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

export const signingKeyViewSchema = z.object({
  kid: z.string().describe('Key id: `ed25519:` + 16 hex characters of the SHA-256 of the public key'),
  publicKeyPem: z.string().describe('Ed25519 public key (SPKI PEM)'),
  createdAt: z.iso.datetime(),
  activatedAt: z.iso.datetime().nullable().describe('When it last became the signer of new bundles'),
  retiredAt: z.iso.datetime().nullable(),
  status: z
    .enum(['active', 'trusted', 'retired'])
    .describe('active: signs new bundles; trusted: sent to agents, not signing; retired: no longer sent to agents'),
  source: z
    .enum(['database', 'config', 'public_only'])
    .describe('Where its private key lives: stored by the API, HOOKWARDEN_SIGNING_KEY, or nowhere on this server'),
});
export class SigningKeyViewDto extends createZodDto(signingKeyViewSchema) {}
export type SigningKeyView = z.infer<typeof signingKeyViewSchema>;

export const signingKeyListSchema = z.object({ items: z.array(signingKeyViewSchema) });
export class SigningKeyListDto extends createZodDto(signingKeyListSchema) {}

export const createSigningKeySchema = z
  .object({
    activate: z
      .boolean()
      .default(false)
      .describe('Make it the signer of new bundles at once (default: only trusted, activate it later)'),
  })
  .strict();
// The body is optional (a bare POST adds a key without activating it); typed as the object for the DTO class.
export class CreateSigningKeyDto extends createZodDto(
  createSigningKeySchema.optional() as unknown as typeof createSigningKeySchema,
) {}

export const signingKeyParamSchema = z.object({
  kid: z
    .string()
    .regex(/^ed25519:[0-9a-f]{16}$/, 'must be a key id like ed25519:0123456789abcdef')
    .describe('Key id'),
});
export class SigningKeyParamDto extends createZodDto(signingKeyParamSchema) {}
