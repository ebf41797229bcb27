// Key rotation on the agent: new signing keys are accepted only from a key list signed by a key already trusted, whose
// sequence is not below the one held and which was issued recently (an old list cannot bring a retired key back).
import {
  type KeyList,
  keyListSchema,
  keyListSigningPayload,
  type TrustedKey,
  verifySignedText,
} from '@hookwarden/hook-core';
import type { ApiClient } from '../client/api-client';

export type KeyListDecision =
  { kind: 'adopt'; keys: TrustedKey[]; sequence: number } | { kind: 'refuse'; reason: string };

// Checks a served key list against the keys and sequence held (pure); says why it is refused.
export function keyListDecision(
  input: unknown,
  trusted: readonly TrustedKey[],
  heldSequence: number,
  now: number,
  maxAgeMs: number,
): KeyListDecision {
  const parsed = keyListSchema.safeParse(input);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { kind: 'refuse', reason: `key list: ${i?.path.join('.') || '(root)'}: ${i?.message}` };
  }
  const list: KeyList = parsed.data;
  if (!trusted.some((k) => k.kid === list.keyId)) {
    return { kind: 'refuse', reason: `key list: signed by untrusted key ${list.keyId}` };
  }
  const payload = keyListSigningPayload(list).toString('utf8');
  if (!verifySignedText(payload, list.signature, list.keyId, trusted)) {
    return { kind: 'refuse', reason: `key list: bad signature (key ${list.keyId})` };
  }
  if (list.sequence < heldSequence) {
    return {
      kind: 'refuse',
      reason: `key list: sequence ${list.sequence} is older than the held sequence ${heldSequence} (replay)`,
    };
  }
  if (now - Date.parse(list.issuedAt) > maxAgeMs) {
    return {
      kind: 'refuse',
      reason: `key list: issued at ${list.issuedAt}, more than ${Math.round(maxAgeMs / 1000)} s ago (stale, replayed?)`,
    };
  }
  if (list.keys.length === 0) return { kind: 'refuse', reason: 'key list: no keys' };
  return {
    kind: 'adopt',
    keys: list.keys.map((k) => ({ kid: k.kid, publicKeyPem: k.publicKeyPem })),
    sequence: list.sequence,
  };
}

// Fetches the server's key list (bounded) and decides on it.
export async function fetchTrustedKeys(
  client: ApiClient,
  trusted: readonly TrustedKey[],
  heldSequence: number,
  maxAgeMs: number,
  signal?: AbortSignal,
): Promise<KeyListDecision> {
  const raw = await client.json<unknown>('GET', '/v1/agent/keys', {
    timeoutMs: 15_000,
    maxBodyBytes: 1024 * 1024,
    signal,
  });
  return keyListDecision(raw, trusted, heldSequence, Date.now(), maxAgeMs);
}
