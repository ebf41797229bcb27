// Key rotation on the agent: new signing keys are accepted only from a key list signed by a key already trusted.
import { createPublicKey, verify } from 'node:crypto';
import { keyListSchema, keyListSigningPayload, type TrustedKey } from '@hookwarden/hook-core';
import type { ApiClient } from '../client/api-client';

// Fetches the server's key list; returns it when it has the contract's shape and a trusted key signed it, else null.
export async function fetchTrustedKeys(client: ApiClient, trusted: TrustedKey[]): Promise<TrustedKey[] | null> {
  const parsed = keyListSchema.safeParse(
    await client.json<unknown>('GET', '/v1/agent/keys', { timeoutMs: 15_000, maxBodyBytes: 1024 * 1024 }),
  );
  if (!parsed.success) return null;
  const list = parsed.data;
  const signer = trusted.find((k) => k.kid === list.keyId);
  if (!signer) return null;
  try {
    const ok = verify(
      null,
      keyListSigningPayload(list),
      createPublicKey(signer.publicKeyPem),
      Buffer.from(list.signature, 'base64'),
    );
    return ok ? list.keys.map((k) => ({ kid: k.kid, publicKeyPem: k.publicKeyPem })) : null;
  } catch {
    return null;
  }
}
