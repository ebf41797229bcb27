// Small HTTP client for the Hookwarden API: base URL + bearer credential, timeouts, typed errors, Retry-After.
import { parseErrorBody } from '@hookwarden/hook-core';

/** A non-2xx answer from the API (the error body's code and message when present). */
export class ApiHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Milliseconds the server asked us to wait (Retry-After), if any. */
    readonly retryAfterMs: number | null,
  ) {
    super(message);
    this.name = 'ApiHttpError';
  }
}

/** The request did not get an answer (connection refused, reset, DNS, timeout). */
export class ApiNetworkError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApiNetworkError';
  }
}

// Parses Retry-After (seconds or an HTTP date) into milliseconds; null when absent or invalid.
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Aborts the request (e.g. on shutdown). */
  signal?: AbortSignal;
  /** Statuses returned as-is instead of thrown (e.g. 304). */
  accept?: number[];
}

export interface ApiClientOptions {
  baseUrl: string;
  credential?: string;
  timeoutMs?: number;
  userAgent?: string;
}

export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  // Sends a request; returns the Response for 2xx and accepted statuses, throws ApiHttpError/ApiNetworkError otherwise.
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent ?? 'hookwarden-agent',
      ...opts.headers,
    };
    if (this.options.credential) headers.authorization = `Bearer ${this.options.credential}`;
    let body: string | Uint8Array | undefined;
    if (opts.body instanceof Uint8Array) body = opts.body;
    else if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.body);
    }
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? this.options.timeoutMs ?? 30_000);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, { method, headers, body, signal });
    } catch (err) {
      const reason =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new ApiNetworkError(`${method} ${this.baseUrl}${path}: ${reason}`, err);
    }
    if (res.ok || opts.accept?.includes(res.status)) return res;
    let code = `http_${res.status}`;
    let message = `${method} ${path}: HTTP ${res.status}`;
    try {
      const parsed = parseErrorBody(await res.json());
      if (parsed) {
        code = parsed.code;
        message = `${method} ${path}: ${res.status} ${parsed.message}`;
      }
    } catch {
      // not JSON
    }
    throw new ApiHttpError(res.status, code, message, parseRetryAfter(res.headers.get('retry-after')));
  }

  // JSON request → parsed JSON answer.
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, opts);
    return (await res.json()) as T;
  }
}
