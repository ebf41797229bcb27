// The signed list of trusted bundle-signing keys (`GET /v1/agent/keys`) and the bytes its signature covers.
import { z } from 'zod';
import { canonicalJson } from '../trust/canonical-json';

/** One trusted Ed25519 public key: key id and SPKI PEM. */
export const trustedKeySchema = z.object({ kid: z.string().min(1), publicKeyPem: z.string().min(1) });
export type TrustedKey = z.infer<typeof trustedKeySchema>;

/** The key list as served: the keys, the id of the key that signed it and the base64 Ed25519 signature. */
export const keyListSchema = z.object({
  keys: z.array(trustedKeySchema).max(1000),
  keyId: z.string().min(1).describe('Key that signed the list'),
  signature: z.string().min(1).describe('Ed25519 signature (base64) of the canonical JSON of `keys`'),
});
export type KeyList = z.infer<typeof keyListSchema>;

/** The exact bytes a key list's signature covers. */
export function keyListSigningPayload(list: Pick<KeyList, 'keys'>): Buffer {
  return Buffer.from(canonicalJson(list.keys.map((k) => ({ kid: k.kid, publicKeyPem: k.publicKeyPem }))), 'utf8');
}
