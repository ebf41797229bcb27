// The CLI's client of the Hookwarden admin API: the typed admin client (@hookwarden/admin-client: method, path,
// parameters, body and answer typed from the OpenAPI document; bounded time and size; reads retried with backoff and
// Retry-After) with the CLI's credentials and user agent, and its errors as CLI errors with located problems.
import {
  AdminApiError,
  AdminBodyError,
  AdminClient,
  AdminNetworkError,
  type FetchResponse,
  type FlatInitArg,
  type InitArg,
  type ItemOf,
  type Method,
  type Page,
  type PageInit,
  type PagedPath,
  type PathsWith,
  type ResponseBody,
} from '@hookwarden/admin-client';
import { transportFetch } from '@hookwarden/hook-core/transport';
import { CliError, type Problem } from '../cli/errors';
import { CLI_VERSION } from '../version';

export { networkReason } from '@hookwarden/admin-client';

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

// The CLI error of an admin-client error (API answer, no answer, bad body); anything else is rethrown as is.
function cliErrorOf(err: unknown): unknown {
  if (err instanceof AdminApiError) {
    const hint =
      err.status === 401
        ? ' (check the token: `hookwarden login` or HOOKWARDEN_TOKEN)'
        : err.status === 403
          ? ' (this token’s role may not do this)'
          : '';
    return new ApiError(
      err.status,
      err.code,
      `${err.method} ${err.path}: ${err.status} ${err.code}: ${err.message}${hint}`,
      err.details,
      problemsFrom(err.details),
    );
  }
  if (err instanceof AdminNetworkError || err instanceof AdminBodyError) return new CliError(err.message);
  return err;
}

// The admin client's init of a flat one (`path` and `query` beside `body`).
function nested<M extends Method, P extends PathsWith<M>>(init: FlatInitArg<M, P>): InitArg<M, P> {
  const [flat] = init as [({ path?: object; query?: object } & Record<string, unknown>) | undefined];
  if (!flat) return [] as unknown as InitArg<M, P>;
  const { path, query, ...rest } = flat;
  return [{ ...rest, params: { path, query } }] as unknown as InitArg<M, P>;
}

// Runs one call of the admin client, its errors turned into CLI errors.
async function cli<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw cliErrorOf(err);
  }
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly admin: AdminClient;

  constructor(options: ApiClientOptions) {
    this.admin = new AdminClient({
      baseUrl: options.baseUrl,
      headers: () => ({
        'user-agent': `hookwarden-cli/${CLI_VERSION}`,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      }),
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      retries: options.retries,
      redirect: 'error', // never replay the bearer token to another location
      fetch: transportFetch, // node:http, not the global fetch (undici and its WASM parser cost half a command's CPU)
    });
    this.baseUrl = this.admin.baseUrl;
  }

  // Sends a request and returns the Response of a 2xx (for streams); API and network errors become CLI errors.
  send<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...init: FlatInitArg<M, P>
  ): Promise<FetchResponse> {
    return cli(() => this.admin.send(method, path, ...nested(init)));
  }

  // JSON request → the operation's typed answer (bounded in size).
  json<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...init: FlatInitArg<M, P>
  ): Promise<ResponseBody<M, P>> {
    return cli(() => this.admin.request(method, path, ...nested(init)));
  }

  // JSON request → status and typed answer (for routes whose 200/201 differ in meaning).
  jsonWithStatus<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...init: FlatInitArg<M, P>
  ): Promise<{ status: number; body: ResponseBody<M, P> }> {
    return cli(() => this.admin.requestWithStatus(method, path, ...nested(init)));
  }

  // Text answer (e.g. requirements.toml, text/x-diff), bounded in size.
  text<P extends PathsWith<'GET'>>(path: P, ...init: FlatInitArg<'GET', P>): Promise<string> {
    return cli(() => this.admin.text(path, ...nested<'GET', P>(init)));
  }

  // One page of a cursor-paginated list.
  page<P extends PagedPath>(
    path: P,
    init: PageInit<P>,
    page: { limit?: number; cursor?: string },
  ): Promise<Page<ItemOf<'GET', P>>> {
    return cli(() => this.admin.page(path, init, page));
  }

  // Every item of a cursor-paginated list (200 a page), up to `max` items.
  listAll<P extends PagedPath>(path: P, init: PageInit<P>, max = 100_000): Promise<Array<ItemOf<'GET', P>>> {
    return cli(() => this.admin.list(path, init, max));
  }
}
