// The typed admin API client: method + path typed from the OpenAPI document, path/query/body typed, answers typed end
// to end. One transport for the CLI and the console: the credentials a surface supplies, bounded time and size, the
// one error body decoded once, and retries of idempotent reads with backoff and the one Retry-After rule.
import { parseRetryAfter } from '@hookwarden/hook-core/http';
import { type AdminApiError, AdminBodyError, AdminNetworkError, apiErrorOf, networkReason } from './errors';
import type {
  ApiPath,
  InitArg,
  ItemOf,
  LooseInit,
  Method,
  PagedPath,
  PathParams,
  PathsWith,
  QueryParams,
  ResponseBody,
} from './types';

/**
 * What the client reads of an answer: the status, headers and a body read chunk by chunk. A WHATWG Response (the
 * console's fetch) has it, and so does the Node transport of the CLI (`@hookwarden/hook-core/transport`, which loads
 * neither undici nor web streams).
 */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: {
    getReader(): {
      read(): Promise<{ done: false; value: Uint8Array } | { done: true; value?: undefined }>;
      cancel(reason?: unknown): Promise<void>;
      releaseLock(): void;
    };
    cancel(reason?: unknown): Promise<void>;
  } | null;
}

/** The request the client makes of its fetch. */
export interface FetchRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  redirect: 'error' | 'follow' | 'manual';
  signal?: AbortSignal;
}

/** A fetch: the global one, or another answering FetchResponse. */
export type FetchFunction = (url: string, init: FetchRequest) => Promise<FetchResponse>;

export interface AdminClientOptions {
  /** The API's origin (and optional base path), e.g. `https://hookwarden.example.com`. */
  baseUrl: string;
  /** Headers added to every request (credentials, user agent); given the method (CSRF tokens are for writes). */
  headers?: (method: Method) => Record<string, string>;
  /** Per-request deadline (headers and body), default 30 s; 0 for none. */
  timeoutMs?: number;
  /** Largest JSON/text answer read into memory, default 64 MiB. */
  maxBytes?: number;
  /** Retries of idempotent requests on network errors, 429 and 502–504 (default 3). */
  retries?: number;
  /** Longest wait a Retry-After may ask for, default 30 s. */
  maxRetryAfterMs?: number;
  /** Redirect handling, default `error` (never replay a bearer token to another location). */
  redirect?: 'error' | 'follow' | 'manual';
  /** Called with every API error before it is thrown (e.g. the console signs out on 401). */
  onError?: (err: AdminApiError) => void;
  /** The fetch to use (default the global one). */
  fetch?: FetchFunction;
}

/** A page of a cursor-paginated list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a page request passes: the path parameters and the query without the paging. */
export type PageInit<P extends PagedPath> = ([PathParams<'GET', P>] extends [never]
  ? { path?: undefined }
  : { path: PathParams<'GET', P> }) & { query?: Omit<QueryParams<'GET', P>, 'limit' | 'cursor'> };

const RETRYABLE = new Set([429, 502, 503, 504]);
/** Error bodies are only read for their code, message and details. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Exponential backoff with jitter: ~0.5 s, 1 s, 2 s … capped at 10 s.
export function backoffMs(attempt: number): number {
  const base = Math.min(10_000, 500 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

// Fills a path template's `{name}` segments (URL-encoded); a missing parameter is a programming error.
export function fillPath(template: string, params: object | undefined): string {
  const values = (params ?? {}) as Record<string, string | number | boolean | undefined | null>;
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || v === null) throw new Error(`${template}: path parameter ${name} is missing`);
    return encodeURIComponent(String(v));
  });
}

// The query string of a query object (undefined/null left out, arrays repeated), with its `?`, or ''.
export function queryString(query: object | undefined): string {
  const q = new URLSearchParams();
  type Value = string | number | boolean;
  for (const [k, v] of Object.entries(query ?? {}) as Array<[string, Value | Value[] | undefined | null]>) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

// Reads a response body up to `max` bytes (aborting beyond it).
export async function readLimited(res: FetchResponse, max: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body.cancel().catch(() => undefined);
    throw new AdminBodyError(`the server's answer is ${declared} bytes; the limit is ${max}`, 'too_large');
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw new AdminBodyError(`the server's answer exceeds ${max} bytes`, 'too_large');
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof AdminBodyError) throw err;
    throw new AdminBodyError(`reading the server's answer failed: ${networkReason(err)}`, 'unreadable');
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const utf8 = new TextDecoder();

export class AdminClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly retries: number;
  private readonly maxRetryAfterMs: number;

  constructor(private readonly options: AdminClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.retries = options.retries ?? 3;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  }

  // The full URL of an operation's path with its path parameters filled in and its query string.
  url<M extends Method, P extends PathsWith<M>>(_method: M, path: P, ...[init]: InitArg<M, P>): string {
    const i = init as LooseInit | undefined;
    return this.baseUrl + fillPath(path, i?.params?.path) + queryString(i?.params?.query);
  }

  // Sends a request and returns the Response of a 2xx; throws AdminApiError for other statuses and
  // AdminNetworkError when nothing answered. Idempotent requests are retried (network errors, 429, 502–504).
  async send<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...[init]: InitArg<M, P>
  ): Promise<FetchResponse> {
    return this.sendLoose(method, path, init ?? {});
  }

  // JSON request → the operation's typed JSON answer (bounded in size; a 204 is undefined).
  async request<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...[init]: InitArg<M, P>
  ): Promise<ResponseBody<M, P>> {
    return (await this.requestWithStatus(method, path, ...([init] as InitArg<M, P>))).body;
  }

  // JSON request → status and typed answer (for routes whose 200 and 201 differ in meaning).
  async requestWithStatus<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...[init]: InitArg<M, P>
  ): Promise<{ status: number; body: ResponseBody<M, P> }> {
    const i = (init ?? {}) as LooseInit;
    const res = await this.sendLoose(method, path, i);
    return { status: res.status, body: (await this.parse(res, method, path, i)) as ResponseBody<M, P> };
  }

  // Text answer of a GET (requirements.toml, text/x-diff), bounded in size.
  async text<P extends PathsWith<'GET'>>(path: P, ...[init]: InitArg<'GET', P>): Promise<string> {
    const i = (init ?? {}) as LooseInit;
    const res = await this.sendLoose('GET', path, { ...i, headers: { accept: '*/*', ...i.headers } });
    return utf8.decode(await readLimited(res, i.maxBytes ?? this.maxBytes));
  }

  // GET shorthand of `request`.
  GET<P extends PathsWith<'GET'>>(path: P, ...init: InitArg<'GET', P>): Promise<ResponseBody<'GET', P>> {
    return this.request('GET', path, ...init);
  }

  // POST shorthand of `request`.
  POST<P extends PathsWith<'POST'>>(path: P, ...init: InitArg<'POST', P>): Promise<ResponseBody<'POST', P>> {
    return this.request('POST', path, ...init);
  }

  // PUT shorthand of `request`.
  PUT<P extends PathsWith<'PUT'>>(path: P, ...init: InitArg<'PUT', P>): Promise<ResponseBody<'PUT', P>> {
    return this.request('PUT', path, ...init);
  }

  // PATCH shorthand of `request`.
  PATCH<P extends PathsWith<'PATCH'>>(path: P, ...init: InitArg<'PATCH', P>): Promise<ResponseBody<'PATCH', P>> {
    return this.request('PATCH', path, ...init);
  }

  // DELETE shorthand of `request`.
  DELETE<P extends PathsWith<'DELETE'>>(path: P, ...init: InitArg<'DELETE', P>): Promise<ResponseBody<'DELETE', P>> {
    return this.request('DELETE', path, ...init);
  }

  // One page of a cursor-paginated list: its items and the cursor of the next page (null on the last one).
  async page<P extends PagedPath>(
    path: P,
    init: PageInit<P>,
    page: { limit?: number; cursor?: string } = {},
  ): Promise<Page<ItemOf<'GET', P>>> {
    const query = { ...init.query, limit: page.limit, cursor: page.cursor };
    const loose: LooseInit = { params: { path: init.path, query } };
    const res = (await this.parse(await this.sendLoose('GET', path, loose), 'GET', path, loose)) as {
      items: Array<ItemOf<'GET', P>>;
      nextCursor?: unknown;
    };
    const next = typeof res.nextCursor === 'string' && res.nextCursor !== '' ? res.nextCursor : null;
    return { items: res.items, nextCursor: next };
  }

  // Every item of a cursor-paginated list, page by page (200 a page), up to `max` items.
  async list<P extends PagedPath>(path: P, init: PageInit<P>, max = 100_000): Promise<Array<ItemOf<'GET', P>>> {
    const out: Array<ItemOf<'GET', P>> = [];
    let cursor: string | undefined;
    for (let n = 0; n < 10_000; n++) {
      const res = await this.page(path, init, { limit: 200, cursor });
      out.push(...res.items);
      if (!res.nextCursor || out.length >= max) break;
      cursor = res.nextCursor;
    }
    return out.slice(0, max);
  }

  // The untyped transport under every typed call.
  private async sendLoose(method: Method, path: ApiPath, init: LooseInit): Promise<FetchResponse> {
    const filled = fillPath(path, init.params?.path);
    const pathAndQuery = filled + queryString(init.params?.query);
    const url = this.baseUrl + pathAndQuery;
    const idempotent = method === 'GET';
    // A Response is a FetchResponse; TypeScript (with the DOM types) cannot see it through getReader's overloads.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed by the console's DOM types
    const doFetch: FetchFunction = this.options.fetch ?? (fetch as unknown as FetchFunction);
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...this.options.headers?.(method),
        ...init.headers,
      };
      let body: string | undefined;
      if (init.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.body);
      }
      const timeoutMs = init.timeoutMs ?? this.timeoutMs;
      let res: FetchResponse;
      try {
        res = await doFetch(url, {
          method,
          headers,
          body,
          redirect: this.options.redirect ?? 'error',
          signal: init.signal ?? (timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined),
        });
      } catch (err) {
        if (idempotent && attempt < this.retries && !init.signal?.aborted) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw new AdminNetworkError(method, this.baseUrl + filled, networkReason(err));
      }
      if (res.ok) return res;
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      if (idempotent && RETRYABLE.has(res.status) && attempt < this.retries) {
        await res.body?.cancel().catch(() => undefined);
        await sleep(Math.min(retryAfterMs ?? backoffMs(attempt), this.maxRetryAfterMs));
        continue;
      }
      let text = '';
      try {
        text = utf8.decode(await readLimited(res, MAX_ERROR_BODY_BYTES));
      } catch {
        // too large or unreadable: the status line says enough
      }
      const err = apiErrorOf(res, text, { method, path: filled, url: pathAndQuery, retryAfterMs });
      this.options.onError?.(err);
      throw err;
    }
  }

  // Reads and parses a JSON body (a 204 answer has none).
  private async parse(res: FetchResponse, method: Method, path: string, init: LooseInit): Promise<unknown> {
    if (res.status === 204) return undefined;
    const text = utf8.decode(await readLimited(res, init.maxBytes ?? this.maxBytes));
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AdminBodyError(
        `${method} ${fillPath(path, init.params?.path)}: the server answered ${res.status} with a body that is not JSON`,
        'malformed',
      );
    }
  }
}
