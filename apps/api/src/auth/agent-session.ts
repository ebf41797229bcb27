// Agent sessions, stateless and shared by every API instance: a session id names the endpoint, the key it was made
// with, its expiry and randomness; its HMAC key is HMAC-SHA256(K, session id) with K derived once from the KEK. Pure.
import { createHmac, randomBytes } from 'node:crypto';

/** HKDF info of the session root key K. */
export const SESSION_KEY_INFO = 'hookwarden.agent-session.v1';

/** What a session id says. */
export interface SessionClaims {
  endpointId: string;
  /** The hash part of the endpoint key id (`ek1:<this>`). */
  keyHash: string;
  /** Unix seconds when the session ends. */
  expiresAt: number;
}

const SESSION_ID =
  /^hs1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(\d{10})\.([A-Za-z0-9_-]{43})\.[A-Za-z0-9_-]{22}$/;
const KEY_ID = /^ek1:([A-Za-z0-9_-]{43})$/;

// A new session id for an endpoint and its key id (`ek1:…`).
export function newSessionId(endpointId: string, keyId: string, expiresAt: number): string {
  const m = KEY_ID.exec(keyId);
  if (!m) throw new Error(`not an endpoint key id: ${keyId}`);
  return `hs1.${endpointId}.${String(expiresAt).padStart(10, '0')}.${m[1]}.${randomBytes(16).toString('base64url')}`;
}

// The claims of a session id, or null when it is not one.
export function parseSessionId(sessionId: string): SessionClaims | null {
  const m = SESSION_ID.exec(sessionId);
  return m ? { endpointId: m[1]!, expiresAt: Number(m[2]), keyHash: m[3]! } : null;
}

// True when a session was made with this endpoint key id.
export function sessionKeyMatches(claims: SessionClaims, keyId: string | null): boolean {
  return keyId !== null && keyId === `ek1:${claims.keyHash}`;
}

// The HMAC key of a session.
export function sessionKey(root: Buffer, sessionId: string): Buffer {
  return createHmac('sha256', root).update(sessionId, 'utf8').digest();
}
