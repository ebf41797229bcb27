// Cookie parsing and serialization for session cookies: bounded, linear-time, no dependencies.

/** Longest Cookie header read; longer ones are cut (browsers send at most a few KB). */
const MAX_COOKIE_HEADER = 16 * 1024;

// Parses a Cookie header into name → value (the first occurrence of a name wins, as browsers order specific first).
export function parseCookies(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const text = (Array.isArray(header) ? header.join('; ') : (header ?? '')).slice(0, MAX_COOKIE_HEADER);
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name !== '' && !out.has(name)) out.set(name, value);
  }
  return out;
}

export interface CookieOptions {
  maxAgeSec?: number;
  path?: string;
  secure: boolean;
  sameSite: 'Lax' | 'Strict';
  httpOnly?: boolean;
}

/** Characters allowed in a cookie value we write (our values are base64url or UUIDs). */
const SAFE_VALUE = /^[A-Za-z0-9._~-]*$/;

// Serializes one Set-Cookie header value.
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  if (!SAFE_VALUE.test(value)) throw new Error(`cookie ${name}: value has characters that need encoding`);
  const parts = [`${name}=${value}`, `Path=${options.path ?? '/'}`, `SameSite=${options.sameSite}`];
  if (options.httpOnly !== false) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSec !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(options.maxAgeSec))}`);
  return parts.join('; ');
}
