// Where a request may present a credential: the Authorization header only (`Bearer <secret>`). Never the query string
// or the body (those end up in logs, proxies and browser history). A further source (e.g. a session cookie) is one
// more entry in CREDENTIAL_SOURCES.
import type { IncomingHttpHeaders } from 'node:http';

/** A credential found in a request, and where it was found. */
export interface PresentedCredential {
  source: 'authorization';
  secret: string;
}

/** One place to look for a credential; null when the request carries none there. */
export type CredentialSource = (headers: IncomingHttpHeaders) => PresentedCredential | null;

/** RFC 6750 `Bearer <token68>` (scheme case-insensitive). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

// The bearer secret of the Authorization header.
export const authorizationHeader: CredentialSource = (headers) => {
  const value = headers.authorization;
  if (typeof value !== 'string' || value.length > 1024) return null;
  const m = BEARER.exec(value);
  return m ? { source: 'authorization', secret: m[1]! } : null;
};

/** Every credential source, in order of precedence. */
export const CREDENTIAL_SOURCES: readonly CredentialSource[] = [authorizationHeader];

// The first credential the request presents, or null.
export function presentedCredential(headers: IncomingHttpHeaders): PresentedCredential | null {
  for (const source of CREDENTIAL_SOURCES) {
    const found = source(headers);
    if (found) return found;
  }
  return null;
}
