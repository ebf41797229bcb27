// Sealing an agent session key to the agent: the agent sends an ephemeral X25519 public key, the server answers with
// its own ephemeral public key and the session key under AES-256-GCM keyed by HKDF(ECDH, salt = session id), so the
// session key never travels in clear (even where TLS ends at a proxy that logs bodies).
import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

const INFO = Buffer.from('hookwarden.session-seal.v1', 'utf8');
/** base64url of a raw 32-byte X25519 public key. */
const RAW_KEY = /^[A-Za-z0-9_-]{43}$/;

/** The sealed session key as the API answers it. */
export interface SealedSessionKey {
  /** The server's ephemeral X25519 public key (base64url, raw 32 bytes). */
  serverPublicKey: string;
  /** AES-GCM nonce (base64url, 12 bytes). */
  iv: string;
  /** Ciphertext followed by the 16-byte tag (base64url). */
  ciphertext: string;
}

/** An ephemeral X25519 key pair of the agent (the public half as sent). */
export interface SessionEphemeral {
  privateKey: KeyObject;
  publicKey: string;
}

// The raw base64url form of an X25519 public key.
function rawPublic(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return String(jwk.x);
}

// Parses a raw base64url X25519 public key; throws naming the problem.
export function parseX25519PublicKey(raw: string): KeyObject {
  if (typeof raw !== 'string' || !RAW_KEY.test(raw)) {
    throw new Error('the ephemeral key must be a raw X25519 public key (base64url of 32 bytes)');
  }
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw }, format: 'jwk' });
}

// A new ephemeral X25519 key pair.
export function newSessionEphemeral(): SessionEphemeral {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey, publicKey: rawPublic(publicKey) };
}

// The AES key of one seal: HKDF-SHA256 over the ECDH secret, salted with the session id.
function sealKey(privateKey: KeyObject, publicKey: KeyObject, sessionId: string): Buffer {
  const shared = diffieHellman({ privateKey, publicKey });
  return Buffer.from(hkdfSync('sha256', shared, Buffer.from(sessionId, 'utf8'), INFO, 32));
}

// Seals a session key to the agent's ephemeral public key (the server side).
export function sealSessionKey(sessionKey: Buffer, agentPublicKey: string, sessionId: string): SealedSessionKey {
  const agent = parseX25519PublicKey(agentPublicKey);
  const mine = generateKeyPairSync('x25519');
  const key = sealKey(mine.privateKey, agent, sessionId);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(sessionId, 'utf8'));
  const ct = Buffer.concat([cipher.update(sessionKey), cipher.final(), cipher.getAuthTag()]);
  return {
    serverPublicKey: rawPublic(mine.publicKey),
    iv: iv.toString('base64url'),
    ciphertext: ct.toString('base64url'),
  };
}

// Opens a sealed session key with the agent's ephemeral private key; throws when it does not open.
export function openSessionKey(sealed: SealedSessionKey, ephemeral: SessionEphemeral, sessionId: string): Buffer {
  const key = sealKey(ephemeral.privateKey, parseX25519PublicKey(sealed.serverPublicKey), sessionId);
  const all = Buffer.from(sealed.ciphertext, 'base64url');
  if (all.length < 17) throw new Error('the sealed session key is too short');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
    decipher.setAAD(Buffer.from(sessionId, 'utf8'));
    decipher.setAuthTag(all.subarray(all.length - 16));
    return Buffer.concat([decipher.update(all.subarray(0, all.length - 16)), decipher.final()]);
  } catch {
    throw new Error('the sealed session key does not open (altered, or not sealed to this agent)');
  }
}
