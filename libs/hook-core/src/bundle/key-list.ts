// The signed list of trusted bundle-signing keys (`GET /v1/agent/keys`) and the bytes its signature covers. The list
// carries a sequence (it grows with every change of the list) and its issue time: an agent refuses a list with a lower
// sequence than the one it holds, and one issued longer ago than its bound, so an old list cannot bring back a retired key.
import { z } from 'zod';
import { canonicalJson } from '../trust/canonical-json';

/** One trusted Ed25519 public key: key id and SPKI PEM. */
export const trustedKeySchema = z.object({ kid: z.string().min(1), publicKeyPem: z.string().min(1) });
export type TrustedKey = z.infer<typeof trustedKeySchema>;

/** The `kind` signed with a key list (keeps it from being mistaken for any other signed text). */
export const KEY_LIST_KIND = 'hookwarden.key-list';

/** The key list as served: keys, sequence, issue time, the id of the key that signed it and the signature. */
export const keyListSchema = z.object({
  keys: z.array(trustedKeySchema).max(1000),
  sequence: z.number().int().min(1).describe('Grows with every change of the list (keys added or retired)'),
  issuedAt: z.iso.datetime().describe('When the server signed this list'),
  keyId: z.string().min(1).describe('Key that signed the list'),
  signature: z
    .string()
    .min(1)
    .describe(
      'Ed25519 signature (base64) of the canonical JSON of `{ kind: "hookwarden.key-list", keys, sequence, issuedAt }`',
    ),
});
export type KeyList = z.infer<typeof keyListSchema>;

/** The exact bytes a key list's signature covers. */
export function keyListSigningPayload(list: Pick<KeyList, 'keys' | 'sequence' | 'issuedAt'>): Buffer {
  return Buffer.from(
    canonicalJson({
      kind: KEY_LIST_KIND,
      keys: list.keys.map((k) => ({ kid: k.kid, publicKeyPem: k.publicKeyPem })),
      sequence: list.sequence,
      issuedAt: list.issuedAt,
    }),
    'utf8',
  );
}
