// Audit-log checkpoints kept in this browser (not a secret: a signed {seq, hash}) and their Ed25519 signature check.
import { canonicalJson } from '@hookwarden/hook-core/browser';
import type { Schemas } from './api/client';

export type Checkpoint = Schemas['AuditCheckpointDto'];

const KEY = 'hookwarden.console.audit-checkpoint';

// The checkpoint kept from the last successful verify, if any (per API origin).
export function loadCheckpoint(): Checkpoint | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const c = JSON.parse(raw) as Partial<Checkpoint>;
    if (typeof c.seq === 'string' && typeof c.hash === 'string' && typeof c.signature === 'string')
      return c as Checkpoint;
  } catch {
    // unreadable: none kept
  }
  return null;
}

export function saveCheckpoint(c: Checkpoint): void {
  localStorage.setItem(KEY, JSON.stringify(c));
}

// Decodes base64 to bytes.
function b64(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Checks a checkpoint's signature with the trusted public key it names: true/false, or null when this browser has no
// Ed25519 in WebCrypto or the key is not among the trusted keys.
export async function checkSignature(
  c: Checkpoint,
  keys: Array<{ kid: string; publicKeyPem: string }>,
): Promise<boolean | null> {
  const key = keys.find((k) => k.kid === c.keyId);
  if (!key || !globalThis.crypto?.subtle) return null;
  try {
    const der = b64(key.publicKeyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
    const pub = await crypto.subtle.importKey('spki', der, { name: 'Ed25519' }, false, ['verify']);
    const message = new TextEncoder().encode(canonicalJson({ kind: c.kind, seq: c.seq, hash: c.hash, at: c.at }));
    return await crypto.subtle.verify({ name: 'Ed25519' }, pub, b64(c.signature), message);
  } catch {
    return null;
  }
}
