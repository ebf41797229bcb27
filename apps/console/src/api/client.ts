// The typed API client: openapi-fetch over the paths generated from the API's OpenAPI document (schema.d.ts), the
// credentials of the session on every request (bearer token or SSO cookie + CSRF token), and one error type carrying the API's message and location.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '@hookwarden/admin-client';

export type Schemas = components['schemas'];

/** One located problem from `error.details` (TOML line/column, JSON path, request field). */
export interface Diagnostic {
  severity?: 'error' | 'warning';
  code?: string;
  message: string;
  line?: number;
  column?: number;
  path?: string;
  field?: string;
  file?: string;
}

/** An API error: status, code, message, request id and where it happened (the request and the located details). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly method: string,
    readonly url: string,
    readonly details: unknown,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The located problems in `details` (an array of diagnostics, or none). */
  get diagnostics(): Diagnostic[] {
    const d = this.details;
    if (!Array.isArray(d)) return [];
    return d.filter((x): x is Diagnostic => typeof x === 'object' && x !== null && 'message' in x);
  }
}

/** How requests authenticate: an API token (Authorization header) or the SSO session cookie (sent by the browser
 * itself, same origin), whose writes carry the session's CSRF token. */
export type Credentials = { token: string } | { csrfToken: string };

let current: Credentials | null = null;
let onUnauthorized: (() => void) | null = null;

// Sets how requests authenticate (null: signed out) and what to do when the API answers 401.
export function configureAuth(credentials: Credentials | null, unauthorized: (() => void) | null = null): void {
  current = credentials;
  onUnauthorized = unauthorized;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// The headers that authenticate one request with the current credentials.
export function authHeaders(method: string): Record<string, string> {
  if (!current) return {};
  if ('token' in current) return { authorization: `Bearer ${current.token}` };
  return SAFE_METHODS.has(method.toUpperCase()) ? {} : { 'x-csrf-token': current.csrfToken };
}

const auth: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders(request.method))) request.headers.set(k, v);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

// Builds the ApiError of a non-2xx response from its `{ error: { code, message, details, requestId } }` body.
export async function errorFrom(response: Response, method: string, body?: unknown): Promise<ApiError> {
  let parsed = body;
  if (parsed === undefined) {
    const text = await response.text().catch(() => '');
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      parsed = text;
    }
  }
  const e = (parsed as { error?: { code?: string; message?: string; details?: unknown; requestId?: string } })?.error;
  const url = new URL(response.url || window.location.href);
  const err = new ApiError(
    response.status,
    e?.code ?? `http_${response.status}`,
    e?.message ??
      (typeof parsed === 'string' && parsed ? parsed.slice(0, 500) : response.statusText || 'Request failed'),
    method,
    url.pathname + url.search,
    e?.details,
    e?.requestId ?? response.headers.get('x-request-id'),
  );
  if (response.status === 401) onUnauthorized?.();
  return err;
}

// Unwraps an openapi-fetch result: the data, or an ApiError thrown with the API's message and location.
export async function unwrap<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
  method = 'GET',
): Promise<T> {
  let result;
  try {
    result = await pending;
  } catch (err) {
    throw new ApiError(0, 'network', `The API did not answer: ${(err as Error).message}`, method, '', null, null);
  }
  if (!result.response.ok) throw await errorFrom(result.response, method, result.error);
  return result.data as T;
}

// Downloads a streamed export (token in the header or the session cookie, never in the URL) and saves it as a file.
export async function downloadExport(path: string, query: Record<string, string>, filename: string): Promise<number> {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query)) if (v !== '') url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await fetch(url, { headers: authHeaders('GET'), credentials: 'same-origin' });
  } catch (err) {
    throw new ApiError(
      0,
      'network',
      `The API did not answer: ${(err as Error).message}`,
      'GET',
      url.pathname,
      null,
      null,
    );
  }
  if (!res.ok) throw await errorFrom(res, 'GET');
  const blob = await res.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return blob.size;
}

/** The `nextCursor` of a page (null on the last page; the document may type it loosely). */
export function nextCursorOf(page: { nextCursor?: unknown }): string | null {
  return typeof page.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : null;
}
