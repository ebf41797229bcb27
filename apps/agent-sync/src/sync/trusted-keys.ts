// Key rotation on the agent: new signing keys are accepted only from a key list signed by a key already trusted.
import { createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';
import type { ApiClient } from '../client/api-client';
import type { TrustedKey } from '../bundle/verify';

// Fetches the server's key list; returns it when a trusted key signed it, else null.
export async function fetchTrustedKeys(client: ApiClient, trusted: TrustedKey[]): Promise<TrustedKey[] | null> {
  const list = await client.json<{ keys: TrustedKey[]; keyId: string; signature: string }>('GET', '/v1/agent/keys', {
    timeoutMs: 15_000,
    maxBodyBytes: 1024 * 1024,
  });
  const signer = trusted.find((k) => k.kid === list.keyId);
  if (!signer || !Array.isArray(list.keys)) return null;
  try {
    const ok = verify(
      null,
      Buffer.from(canonicalJson(list.keys), 'utf8'),
      createPublicKey(signer.publicKeyPem),
      Buffer.from(list.signature, 'base64'),
    );
    return ok ? list.keys.map((k) => ({ kid: String(k.kid), publicKeyPem: String(k.publicKeyPem) })) : null;
  } catch {
    return null;
  }
}
