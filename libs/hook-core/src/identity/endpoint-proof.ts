// Endpoint identity proofs: an endpoint's own Ed25519 key signs a purpose-tagged canonical JSON payload (enrollment,
// re-enrollment with the old key, key migration). The agent signs with it, the API verifies with it: one contract.
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../trust/canonical-json';

/** What a proof is for: a signature made for one purpose never verifies for another. */
export const PROOF_PURPOSES = {
  /** A new key proves possession at enrollment (payload: the enroll request's fields). */
  enroll: 'hookwarden.enroll.v1',
  /** The endpoint's current key vouches for re-enrolling (payload: endpointId, machineId, the new public key). */
  reenroll: 'hookwarden.reenroll.v1',
  /** A bearer-enrolled agent's new key proves possession when it is registered (payload: endpointId, publicKey). */
  migrate: 'hookwarden.key-migrate.v1',
} as const;
export type ProofPurpose = keyof typeof PROOF_PURPOSES;

/** Longest accepted SPKI PEM of an endpoint key (an Ed25519 SPKI PEM is 113 bytes). */
export const MAX_PUBLIC_KEY_PEM_CHARS = 512;
/** Longest accepted proof signature (base64 of 64 bytes is 88 characters). */
export const MAX_PROOF_CHARS = 128;

// The bytes a proof signs: the purpose tag and the payload, canonically.
export function proofText(purpose: ProofPurpose, payload: Record<string, unknown>): string {
  return canonicalJson({ ...payload, purpose: PROOF_PURPOSES[purpose] });
}

// Signs a proof with the endpoint's private key; base64 Ed25519 signature.
export function signEndpointProof(
  privateKey: KeyObject,
  purpose: ProofPurpose,
  payload: Record<string, unknown>,
): string {
  return sign(null, Buffer.from(proofText(purpose, payload), 'utf8'), privateKey).toString('base64');
}

// Parses an endpoint public key (SPKI PEM); throws naming the problem unless it is an Ed25519 public key.
export function parseEndpointPublicKey(pem: string): KeyObject {
  if (typeof pem !== 'string' || pem.length === 0 || pem.length > MAX_PUBLIC_KEY_PEM_CHARS) {
    throw new Error(`the endpoint public key must be an SPKI PEM of at most ${MAX_PUBLIC_KEY_PEM_CHARS} characters`);
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('the endpoint public key is not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the endpoint public key must be Ed25519, not ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  return key;
}

// True when `signature` is the endpoint key's proof of `payload` for `purpose` (false for any malformed input).
export function verifyEndpointProof(
  publicKey: KeyObject | string,
  purpose: ProofPurpose,
  payload: Record<string, unknown>,
  signature: string,
): boolean {
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > MAX_PROOF_CHARS) return false;
  try {
    const key = typeof publicKey === 'string' ? parseEndpointPublicKey(publicKey) : publicKey;
    const sig = Buffer.from(signature, 'base64');
    if (sig.length !== 64) return false;
    return verify(null, Buffer.from(proofText(purpose, payload), 'utf8'), key, sig);
  } catch {
    return false;
  }
}

// The key id of an endpoint public key: `ek1:` + base64url(sha256(SPKI DER)), stable across PEM formatting.
export function endpointKeyId(publicKey: KeyObject | string): string {
  const key = typeof publicKey === 'string' ? parseEndpointPublicKey(publicKey) : publicKey;
  const der = key.export({ format: 'der', type: 'spki' });
  return `ek1:${createHash('sha256').update(der).digest('base64url')}`;
}

// The canonical SPKI PEM of a public key (what the API stores and the agent sends).
export function endpointPublicKeyPem(publicKey: KeyObject): string {
  return publicKey.export({ format: 'pem', type: 'spki' }).toString();
}

/** What an enrollment's `enroll` proof signs (the secret only as its SHA-256, hex). */
export interface EnrollProofFields {
  secretSha256: string;
  hostname: string;
  platform: string;
  machineId: string;
  agentVersion: string;
  publicKey: string;
  /** Unix seconds when the agent made the proof (checked against the server's clock). */
  created: number;
}

// The payload of an `enroll` proof.
export function enrollProofPayload(f: EnrollProofFields): Record<string, unknown> {
  return { ...f };
}

// The payload of a `reenroll` proof: the old key vouches for the new public key of the same endpoint and machine.
export function reenrollProofPayload(f: {
  endpointId: string;
  machineId: string;
  publicKey: string;
  created: number;
}): Record<string, unknown> {
  return { endpointId: f.endpointId, machineId: f.machineId, publicKey: f.publicKey, created: f.created };
}

// The payload of a `migrate` proof: a bearer-enrolled endpoint's new key.
export function migrateProofPayload(f: { endpointId: string; publicKey: string }): Record<string, unknown> {
  return { endpointId: f.endpointId, publicKey: f.publicKey };
}

// The SHA-256 (hex) of an enrollment secret, as an enroll proof names it.
export function secretSha256(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
