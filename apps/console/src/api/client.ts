// The console's API client: the typed admin client (@hookwarden/admin-client, generated from the API's OpenAPI
// document; the one error-body decoder) with the session's credentials on every request (bearer token or SSO cookie
// + CSRF token), and one error type carrying the API's message and location.
import {
  AdminApiError,
  AdminBodyError,
  AdminClient,
  AdminNetworkError,
  type Diagnostic,
  diagnosticsOf,
  type InitArg,
  type Method,
  type PagedPath,
  type PageInit,
  type PathsWith,
  type QueryParams,
  type Schemas,
} from '@hookwarden/admin-client';

export type { Diagnostic, Schemas };

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
    return diagnosticsOf(this.details);
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

// The console's ApiError of any failure of an admin-client call (API answer, no answer, unreadable body).
export function apiErrorOf(err: unknown, method: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof AdminApiError) {
    const message = err.decoded ? err.message : err.bodyText || err.statusText || 'Request failed';
    if (err.status === 401) onUnauthorized?.();
    return new ApiError(err.status, err.code, message, err.method, err.url, err.details, err.requestId);
  }
  if (err instanceof AdminNetworkError) {
    return new ApiError(0, 'network', `The API did not answer: ${err.reason}`, method, '', null, null);
  }
  if (err instanceof AdminBodyError) return new ApiError(0, 'bad_body', err.message, method, '', null, null);
  return new ApiError(0, 'network', `The API did not answer: ${(err as Error).message}`, method, '', null, null);
}

// Runs one admin-client call, rethrowing its failure as the console's ApiError.
async function translated<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw apiErrorOf(err, method);
  }
}

/** The admin client whose every failure is an ApiError (what ErrorBox shows), so pages await calls directly. */
class ConsoleClient extends AdminClient {
  override send<M extends Method, P extends PathsWith<M>>(method: M, path: P, ...init: InitArg<M, P>) {
    return translated(method, () => super.send(method, path, ...init));
  }
  override requestWithStatus<M extends Method, P extends PathsWith<M>>(method: M, path: P, ...init: InitArg<M, P>) {
    return translated(method, () => super.requestWithStatus(method, path, ...init));
  }
  override text<P extends PathsWith<'GET'>>(path: P, ...init: InitArg<'GET', P>) {
    return translated('GET', () => super.text(path, ...init));
  }
  override page<P extends PagedPath>(path: P, init: PageInit<P>, page?: { limit?: number; cursor?: string }) {
    return translated('GET', () => super.page(path, init, page));
  }
}

/** The admin API, typed from its OpenAPI document; answers are the data, failures are thrown as ApiError. */
export const api: AdminClient = new ConsoleClient({
  baseUrl: window.location.origin,
  headers: (method: Method) => authHeaders(method),
  timeoutMs: 600_000,
  retries: 0,
  redirect: 'follow',
});

/** Awaits an admin-client call (kept for callers written before `api` threw ApiError itself). */
export async function unwrap<T>(pending: Promise<T>, method = 'GET'): Promise<T> {
  return translated(method, () => pending);
}

// Downloads a hook-run export (token in the header or the session cookie, never in the URL) and saves it as a file.
export async function downloadExport(
  query: QueryParams<'GET', '/v1/hook-runs/export'>,
  filename: string,
): Promise<number> {
  let res: Response;
  try {
    // The console's client runs on the browser's fetch: its answers are Responses.
    res = (await api.send('GET', '/v1/hook-runs/export', {
      params: { query },
      headers: { accept: '*/*' },
      timeoutMs: 0,
    })) as Response;
  } catch (err) {
    throw apiErrorOf(err, 'GET');
  }
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
