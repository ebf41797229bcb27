// Sealing secrets at rest (private signing keys, IdP refresh tokens): AES-256-GCM under a key-encryption key (KEK) from
// configuration. A sealed value names
// its KEK (id = first 16 hex of a SHA-256 of it), so rows sealed under a previous KEK are still opened during a rotation
// and re-sealed under the current one; the key id (or, for other secrets, what they belong to) is the additional
// authenticated data (a sealed value moved to another row does not open). Pure functions; the KeyVault service resolves the KEKs.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Prefix and version of a sealed value: `hwkek1.<kekId>.<iv>.<tag>.<ciphertext>` (base64url parts). */
export const SEALED_PREFIX = 'hwkek1';

// Parses a KEK given as base64 (or base64url) of exactly 32 bytes; throws naming what is wrong (never the value).
export function parseKek(text: string, what: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new Error(`${what}: not base64`);
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new Error(`${what}: must be 32 bytes (base64 of 32 random bytes), got ${key.length}`);
  return key;
}

// The id a sealed value names its KEK by (not secret: a one-way digest).
export function kekIdOf(kek: Buffer): string {
  return createHash('sha256').update('hookwarden-kek:').update(kek).digest('hex').slice(0, 16);
}

// True when a stored value is sealed (anything else in the column is a legacy plain-text PEM).
export function isSealed(value: string): boolean {
  return value.startsWith(`${SEALED_PREFIX}.`);
}

// The KEK id a sealed value names, or null when it is not sealed.
export function sealedKekId(value: string): string | null {
  return isSealed(value) ? (value.split('.')[1] ?? null) : null;
}

// Seals a private key (PEM text) for the row of key `kid`.
export function seal(plaintext: string, kid: string, kek: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const b64 = (b: Buffer): string => b.toString('base64url');
  return [SEALED_PREFIX, kekIdOf(kek), b64(iv), b64(cipher.getAuthTag()), b64(ct)].join('.');
}

// Opens a sealed value with whichever of `keks` it names; throws naming the value (`what`) and the KEK it needs.
export function unseal(sealed: string, kid: string, keks: readonly Buffer[], what = `signing key ${kid}`): string {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== SEALED_PREFIX) throw new Error(`${what}: not a sealed value`);
  const [, kekId, iv, tag, ct] = parts as [string, string, string, string, string];
  const kek = keks.find((k) => kekIdOf(k) === kekId);
  if (!kek) {
    throw new Error(
      `${what} is sealed under KEK ${kekId}, which is not configured (HOOKWARDEN_KEK / HOOKWARDEN_KEK_FILE, ` +
        `or HOOKWARDEN_KEK_PREVIOUS during a rotation); configured: ${keks.map(kekIdOf).join(', ') || 'none'}`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`${what}: the sealed value does not open with KEK ${kekId} (altered?)`);
  }
}
