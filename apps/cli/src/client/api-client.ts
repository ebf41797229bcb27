// HTTP client for the Hookwarden admin API: bearer header, bounded time and size, the API's error shape, retries
// with backoff for idempotent reads.
import { CliError, type Problem } from '../cli/errors';
import { CLI_VERSION } from '../version';

/** A non-2xx answer, carrying the API's { error: { code, message, details } }. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
    problems: Problem[],
  ) {
    super(message, problems);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  token?: string;
  /** Per-request deadline (headers and body), default 30 s. */
  timeoutMs?: number;
  /** Largest JSON/text answer read into memory, default 64 MiB. */
  maxBytes?: number;
  /** Retries of idempotent requests on network errors, 429 and 502–504 (default 3). */
  retries?: number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_RETRY_AFTER_MS = 30_000;

// Milliseconds from a Retry-After header (seconds or HTTP date), or null.
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,6}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

// Turns the API's error.details into located problems (arrays of diagnostics, or a currentVersion conflict).
export function problemsFrom(details: unknown): Problem[] {
  const out: Problem[] = [];
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  if (Array.isArray(details)) {
    for (const d of details.slice(0, 200)) {
      if (d === null || typeof d !== 'object') continue;
      const r = d as Record<string, unknown>;
      out.push({
        message: str(r.message) ?? JSON.stringify(r).slice(0, 500),
        code: str(r.code),
        severity: r.severity === 'warning' ? 'warning' : undefined,
        file: str(r.file),
        line: num(r.line),
        column: num(r.column),
        path: str(r.path),
        field: str(r.field),
      });
    }
  } else if (details !== null && typeof details === 'object') {
    const r = details as Record<string, unknown>;
    const cur = r.currentVersion as Record<string, unknown> | null | undefined;
    if (cur && typeof cur === 'object') {
      out.push({
        message:
          `the server's latest version is ${String(cur.number)} (${String(cur.digest)}), ` +
          `by ${String(cur.authorName)} at ${String(cur.createdAt)}`,
        code: str(r.reason),
      });
    } else if (str(r.reason)) {
      out.push({ message: `reason: ${str(r.reason)}` });
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ApiClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly retries: number;

  constructor(private readonly options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.retries = options.retries ?? 3;
  }

  // The full URL of a path with its query string (undefined/null values are left out).
  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  // Sends a request and returns the Response of a 2xx; throws ApiError for others and CliError for network errors.
  // `signal` (when given) replaces the overall deadline, e.g. for streams with an idle timeout.
  async send(method: string, path: string, opts: RequestOptions = {}, signal?: AbortSignal): Promise<Response> {
    const idempotent = method === 'GET' || method === 'HEAD';
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {
        'user-agent': `hookwarden-cli/${CLI_VERSION}`,
        accept: 'application/json',
        ...opts.headers,
      };
      if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.body);
      }
      let res: Response;
      try {
        res = await fetch(this.url(path, opts.query), {
          method,
          headers,
          body,
          redirect: 'error', // never replay the bearer token to another location
          signal: signal ?? AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs),
        });
      } catch (err) {
        const reason = networkReason(err);
        if (idempotent && attempt < this.retries && !signal?.aborted) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new CliError(`${method} ${this.baseUrl}${path}: ${reason}`);
      }
      if (res.ok) return res;
      if (idempotent && RETRYABLE.has(res.status) && attempt < this.retries) {
        const wait = Math.min(retryAfterMs(res.headers.get('retry-after')) ?? backoff(attempt), MAX_RETRY_AFTER_MS);
        await res.body?.cancel().catch(() => undefined);
        await sleep(wait);
        continue;
      }
      throw await this.errorOf(method, path, res);
    }
  }

  // Builds the ApiError of a non-2xx answer from the one error shape (or the status alone).
  private async errorOf(method: string, path: string, res: Response): Promise<ApiError> {
    let code = `http_${res.status}`;
    let message = `HTTP ${res.status} ${res.statusText}`.trim();
    let details: unknown;
    try {
      const text = (await readLimited(res, 1024 * 1024)).toString('utf8');
      const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
      if (parsed.error && typeof parsed.error === 'object') {
        if (typeof parsed.error.code === 'string') code = parsed.error.code;
        if (typeof parsed.error.message === 'string') message = parsed.error.message.slice(0, 4000);
        details = parsed.error.details;
      }
    } catch {
      // not the API's JSON error shape: keep the status line
    }
    const hint =
      res.status === 401
        ? ' (check the token: `hookwarden login` or HOOKWARDEN_TOKEN)'
        : res.status === 403
          ? ' (this token’s role may not do this)'
          : '';
    return new ApiError(
      res.status,
      code,
      `${method} ${path}: ${res.status} ${code}: ${message}${hint}`,
      details,
      problemsFrom(details),
    );
  }

  // JSON request → parsed JSON answer (bounded in size).
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    return (await this.parse(res, method, path, opts)) as T;
  }

  // JSON request → status and parsed answer (for routes whose 200/201 differ in meaning).
  async jsonWithStatus<T>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<{ status: number; body: T }> {
    const res = await this.send(method, path, opts);
    return { status: res.status, body: (await this.parse(res, method, path, opts)) as T };
  }

  // Text request (e.g. requirements.toml, text/x-diff), bounded in size.
  async text(path: string, opts: RequestOptions = {}): Promise<string> {
    const res = await this.send('GET', path, { ...opts, headers: { accept: '*/*', ...opts.headers } });
    return (await readLimited(res, opts.maxBytes ?? this.maxBytes)).toString('utf8');
  }

  // Reads and parses a JSON body.
  private async parse(res: Response, method: string, path: string, opts: RequestOptions): Promise<unknown> {
    const buf = await readLimited(res, opts.maxBytes ?? this.maxBytes);
    try {
      return JSON.parse(buf.toString('utf8'));
    } catch {
      throw new CliError(`${method} ${path}: the server answered ${res.status} with a body that is not JSON`);
    }
  }
}

// Reads a response body up to `max` bytes (aborting beyond it).
export async function readLimited(res: Response, max: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body.cancel().catch(() => undefined);
    throw new CliError(`the server's answer is ${declared} bytes; the limit is ${max}`);
  }
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw new CliError(`the server's answer exceeds ${max} bytes`);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`reading the server's answer failed: ${networkReason(err)}`);
  }
  return Buffer.concat(chunks);
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

// Exponential backoff with jitter: ~0.5 s, 1 s, 2 s … capped at 10 s.
function backoff(attempt: number): number {
  const base = Math.min(10_000, 500 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

/** A page of a cursor-paginated list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// Fetches pages until `max` items or the end (limits how much a list can grow).
export async function listAll<T>(
  client: ApiClient,
  path: string,
  query: RequestOptions['query'] = {},
  max = 100_000,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const res = await client.json<Page<T>>('GET', path, { query: { ...query, limit: 200, cursor } });
    out.push(...res.items);
    if (!res.nextCursor || out.length >= max) break;
    cursor = res.nextCursor;
  }
  return out.slice(0, max);
}
