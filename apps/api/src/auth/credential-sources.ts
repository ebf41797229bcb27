// Where a request may present a credential, in order of precedence (CREDENTIAL_SOURCES):
//   1. the Authorization header (`Bearer <secret>`): API tokens, personal tokens, agent credentials;
//   2. the SSO session cookie (browser routes of the console; writes also need the CSRF header, checked by
//      SessionAuthService), only when the request has no Authorization header at all.
// Never the query string or the body: those end up in logs, proxies and browser history.
import type { IncomingHttpHeaders } from 'node:http';
import { parseCookies } from '../sso/cookies';

/** A credential found in a request, and where it was found. */
export interface PresentedCredential {
  source: 'authorization' | 'session';
  /** The secret ('' when the source is present but malformed: it is refused, never looked up). */
  secret: string;
}

/** What a source needs besides the headers: the session cookie's name (none: sessions are not accepted). */
export interface SourceOptions {
  sessionCookie?: string;
}

/** One place to look for a credential; null when the request carries none there. */
export type CredentialSource = (headers: IncomingHttpHeaders, options: SourceOptions) => PresentedCredential | null;

/** RFC 6750 `Bearer <token68>` (scheme case-insensitive). Linear: one character class, anchored. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Session secrets as the API issues them. */
const SESSION_SECRET = /^[A-Za-z0-9_-]{20,200}$/;

// The bearer secret of the Authorization header (present but not a bearer: an empty secret, refused).
export const authorizationHeader: CredentialSource = (headers) => {
  const value = headers.authorization;
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > 1024) return { source: 'authorization', secret: '' };
  const m = BEARER.exec(value);
  return { source: 'authorization', secret: m ? m[1]! : '' };
};

// The SSO session cookie (only where the caller names the cookie: Nest routes, never the agents' routes).
export const sessionCookie: CredentialSource = (headers, options) => {
  if (!options.sessionCookie || typeof headers.cookie !== 'string') return null;
  const value = parseCookies(headers.cookie).get(options.sessionCookie);
  if (value === undefined) return null;
  return { source: 'session', secret: SESSION_SECRET.test(value) ? value : '' };
};

/** Every credential source, in order of precedence: the first one present decides. */
export const CREDENTIAL_SOURCES: readonly CredentialSource[] = [authorizationHeader, sessionCookie];

// The first credential the request presents, or null.
export function presentedCredential(
  headers: IncomingHttpHeaders,
  options: SourceOptions = {},
): PresentedCredential | null {
  for (const source of CREDENTIAL_SOURCES) {
    const found = source(headers, options);
    if (found) return found;
  }
  return null;
}
