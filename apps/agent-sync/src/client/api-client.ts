// Small HTTP client for the Hookwarden API: base URL + bearer credential, timeouts, typed errors, Retry-After, and
// bounded bodies (a size cap enforced while streaming and a deadline on slow bodies, whatever the server sends).
import { parseErrorBody, parseRetryAfter } from '@hookwarden/hook-core/http';
import { transportFetch, type HttpResponse } from './transport';

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

/** A response body broke its bounds (too large, too slow, or not the JSON it should be). */
export class ApiBodyError extends Error {
  constructor(
    message: string,
    readonly reason: 'too_large' | 'too_slow' | 'malformed' | 'aborted',
  ) {
    super(message);
    this.name = 'ApiBodyError';
  }
}

// Retry-After is read by the one rule every client shares (hook-core's wire contract).
export { parseRetryAfter };

/** Default bounds of a response body the agent reads. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
/** Error bodies are only read for their code and message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface BodyLimits {
  /** Largest body accepted (bytes after content decoding); larger ones are cut off while streaming. */
  maxBytes?: number;
  /** How long the body may take once the headers arrived. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

// Reads a response body into memory within `limits`; throws ApiBodyError (and cancels the stream) beyond them.
export async function readBody(res: HttpResponse, what: string, limits: BodyLimits = {}): Promise<Buffer> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new ApiBodyError(
      `${what}: response of ${declared} bytes exceeds the limit of ${maxBytes} bytes`,
      'too_large',
    );
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const ended: { failure: ApiBodyError | null } = { failure: null };
  const stop = (err: ApiBodyError): ApiBodyError => {
    ended.failure ??= err;
    void reader.cancel(err).catch(() => undefined);
    return ended.failure;
  };
  const timer = setTimeout(
    () => void stop(new ApiBodyError(`${what}: response body not complete within ${timeoutMs} ms`, 'too_slow')),
    timeoutMs,
  );
  const onAbort = (): void => void stop(new ApiBodyError(`${what}: aborted`, 'aborted'));
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (err) {
        if (ended.failure) throw ended.failure;
        throw new ApiNetworkError(`${what}: ${err instanceof Error ? err.message : String(err)}`, err);
      }
      if (ended.failure) throw ended.failure;
      if (step.done) break;
      total += step.value.byteLength;
      if (total > maxBytes) {
        throw stop(new ApiBodyError(`${what}: response exceeds the limit of ${maxBytes} bytes`, 'too_large'));
      }
      chunks.push(step.value);
    }
  } finally {
    clearTimeout(timer);
    limits.signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}

// Reads and parses a JSON body within `limits`.
export async function readJson<T = unknown>(res: HttpResponse, what: string, limits: BodyLimits = {}): Promise<T> {
  const body = await readBody(res, what, limits);
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new ApiBodyError(`${what}: response is not JSON`, 'malformed');
  }
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Aborts the request (e.g. on shutdown). */
  signal?: AbortSignal;
  /** Statuses returned as-is instead of thrown (e.g. 304). */
  accept?: number[];
  /** Bounds of the answer's body when read with json() (default: the client's). */
  maxBodyBytes?: number;
}

/** Signs requests (the endpoint's session, see identity.ts). */
export interface RequestSigner {
  /** The signature headers (Content-Digest, Signature-Input, Signature) of one request as sent. */
  sign(
    method: string,
    target: string,
    body: Uint8Array | undefined,
    signal?: AbortSignal,
  ): Promise<Record<string, string>>;
  /** Told of a 401 with its code: true when the request may be retried once (e.g. the session was renewed). */
  refused(code: string): boolean;
}

export interface ApiClientOptions {
  baseUrl: string;
  /** Legacy bearer credential (endpoints enrolled before endpoint keys). */
  credential?: string;
  /** Signs every request (endpoints with a key). */
  signer?: RequestSigner;
  timeoutMs?: number;
  userAgent?: string;
  /** Largest response body read (default 16 MiB). */
  maxBodyBytes?: number;
  /** Deadline of a response body once its headers arrived (default 60 s). */
  bodyTimeoutMs?: number;
}

export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The body bounds of this client. */
  limits(opts: { maxBodyBytes?: number; signal?: AbortSignal } = {}): BodyLimits {
    return {
      maxBytes: opts.maxBodyBytes ?? this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      timeoutMs: this.options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      signal: opts.signal,
    };
  }

  // Sends a request; returns the Response for 2xx and accepted statuses, throws ApiHttpError/ApiNetworkError otherwise.
  // Signed requests are retried once when the signer renews its session after a 401 session_expired.
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const base: Record<string, string> = {
      'user-agent': this.options.userAgent ?? 'hookwarden-agent',
      ...opts.headers,
    };
    if (this.options.credential && !this.options.signer) base.authorization = `Bearer ${this.options.credential}`;
    let body: Uint8Array | undefined;
    if (opts.body instanceof Uint8Array) body = opts.body;
    else if (opts.body !== undefined) {
      base['content-type'] ??= 'application/json';
      body = Buffer.from(JSON.stringify(opts.body), 'utf8');
    }
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? this.options.timeoutMs ?? 30_000);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    const signer = this.options.signer;
    for (let attempt = 0; ; attempt++) {
      const headers = signer ? { ...base, ...(await signer.sign(method, this.target(path), body, signal)) } : base;
      let res: HttpResponse;
      try {
        res = await transportFetch(this.baseUrl + path, { method, headers, body, signal });
      } catch (err) {
        const reason =
          err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
        throw new ApiNetworkError(`${method} ${this.baseUrl}${path}: ${reason}`, err);
      }
      if (res.ok || opts.accept?.includes(res.status)) return res;
      const error = await this.errorOf(res, method, path, signal);
      if (signer && attempt === 0 && error.status === 401 && signer.refused(error.code)) continue;
      throw error;
    }
  }

  // The path and query the server receives (what a signature covers).
  private target(path: string): string {
    const url = new URL(this.baseUrl + path);
    return url.pathname + url.search;
  }

  // The ApiHttpError of a non-2xx answer (its error body's code and message when readable).
  private async errorOf(res: HttpResponse, method: string, path: string, signal: AbortSignal): Promise<ApiHttpError> {
    let code = `http_${res.status}`;
    let message = `${method} ${path}: HTTP ${res.status}`;
    try {
      const parsed = parseErrorBody(
        await readJson(res, `${method} ${path}`, {
          ...this.limits({ maxBodyBytes: MAX_ERROR_BODY_BYTES, signal }),
          timeoutMs: Math.min(10_000, this.options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
        }),
      );
      if (parsed) {
        code = parsed.code.slice(0, 100);
        message = `${method} ${path}: ${res.status} ${parsed.message.slice(0, 1000)}`;
      }
    } catch {
      // not JSON, too large or too slow: the status says enough
    }
    return new ApiHttpError(res.status, code, message, parseRetryAfter(res.headers.get('retry-after')));
  }

  // Reads a response's JSON body within this client's bounds.
  async readJson<T>(res: HttpResponse, what: string, opts: { maxBodyBytes?: number; signal?: AbortSignal } = {}) {
    return readJson<T>(res, what, this.limits(opts));
  }

  // JSON request → parsed JSON answer (body bounded).
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, opts);
    return this.readJson<T>(res, `${method} ${path}`, { maxBodyBytes: opts.maxBodyBytes, signal: opts.signal });
  }

  // Sends a request whose answer body is not needed, and discards that body without reading it.
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<number> {
    const res = await this.request(method, path, opts);
    await res.body?.cancel().catch(() => undefined);
    return res.status;
  }
}
