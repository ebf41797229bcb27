// The admin client's errors: an API answer that is not 2xx (the one error body, decoded once), no answer at all,
// and an answer whose body broke its bounds. Each surface (CLI, console) phrases them for its users.
import { parseErrorBody } from '@hookwarden/hook-core/http';

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

/** A non-2xx answer: status, the error body's code, message, details and request id, and where the request went. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly code: string,
    message: string,
    /** Whether the body was the API's error body (false: `message` is the status line). */
    readonly decoded: boolean,
    readonly details: unknown,
    readonly requestId: string | null,
    readonly method: string,
    /** The request's path template filled in, without the query. */
    readonly path: string,
    /** The request's path and query. */
    readonly url: string,
    /** Milliseconds the server asked to wait (Retry-After), if any. */
    readonly retryAfterMs: number | null,
    /** The first 500 characters of a body that was not the error body. */
    readonly bodyText: string,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }

  /** The located problems in `details` (an array of diagnostics, or none). */
  get diagnostics(): Diagnostic[] {
    return diagnosticsOf(this.details);
  }
}

// The located problems of an error body's `details` (an array of diagnostics, or none).
export function diagnosticsOf(details: unknown): Diagnostic[] {
  if (!Array.isArray(details)) return [];
  return details.filter((x): x is Diagnostic => typeof x === 'object' && x !== null && 'message' in x);
}

/** The request got no answer (refused, reset, DNS, TLS, timeout, aborted). */
export class AdminNetworkError extends Error {
  constructor(
    readonly method: string,
    /** The request's URL without its query. */
    readonly url: string,
    /** A readable reason (`timed out`, `ECONNREFUSED (…)`). */
    readonly reason: string,
  ) {
    super(`${method} ${url}: ${reason}`);
    this.name = 'AdminNetworkError';
  }
}

/** An answer's body broke its bounds or its format (too large, unreadable, not JSON). */
export class AdminBodyError extends Error {
  constructor(
    message: string,
    readonly reason: 'too_large' | 'unreadable' | 'malformed',
  ) {
    super(message);
    this.name = 'AdminBodyError';
  }
}

// A readable reason for a fetch failure (timeouts, refused connections, TLS).
export function networkReason(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError') return 'timed out';
    if (err.name === 'AbortError') return 'aborted';
    const cause = err.cause as { code?: string; message?: string } | undefined;
    if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
    return cause?.message ?? err.message;
  }
  return String(err);
}

// Builds the AdminApiError of a non-2xx answer from its body text (the one error body, or the status line).
export function apiErrorOf(
  res: { status: number; statusText: string; headers: { get(name: string): string | null } },
  bodyText: string,
  where: { method: string; path: string; url: string; retryAfterMs: number | null },
): AdminApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText) as unknown;
  } catch {
    parsed = undefined;
  }
  const e = parseErrorBody(parsed);
  return new AdminApiError(
    res.status,
    res.statusText,
    e?.code ?? `http_${res.status}`,
    e ? e.message.slice(0, 4000) : `HTTP ${res.status} ${res.statusText}`.trim(),
    e !== null,
    e?.details,
    e?.requestId ?? res.headers.get('x-request-id'),
    where.method,
    where.path,
    where.url,
    where.retryAfterMs,
    e ? '' : bodyText.slice(0, 500),
  );
}
