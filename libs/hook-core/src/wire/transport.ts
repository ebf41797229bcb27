// The HTTP transport of the Node clients (hookwarden-agent, the hookwarden CLI): a fetch-compatible function on
// node:http/node:https (`@hookwarden/hook-core/transport`). Why not Node's global fetch: it loads undici and its
// WASM HTTP parser (about half the CPU of a short CLI command, and resident memory in the agent), and undici calls
// setKeepAlive on a socket before it connects, which Wine (and so the agent under it) rejects with `connect
// UNKNOWN`; here keep-alive is switched on after 'connect'. The answer is a small Response (HttpResponse: status,
// headers, a body read chunk by chunk as it arrives and is decoded, text/json/arrayBuffer) — no WHATWG Response or
// web streams to load. Bounded: a small socket pool, response headers within Node's header size limit, at most 5
// redirects, an AbortSignal that ends the request and the body. TLS: Node's https with its defaults (the system CA
// store plus NODE_EXTRA_CA_CERTS, full verification), as fetch does.
import type * as httpNs from 'node:http';
import type * as httpsNs from 'node:https';
import type * as netNs from 'node:net';
import type * as tlsNs from 'node:tls';
import type * as zlibNs from 'node:zlib';

/** How long an idle pooled connection is kept before it is closed. */
const IDLE_SOCKET_MS = 30_000;
/** Parallel connections per host (a client makes a few at most: long poll, uploads, status). */
const MAX_SOCKETS = 8;
const MAX_REDIRECTS = 5;
/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** The request a client sends (the subset of fetch's RequestInit the clients use). */
export interface HttpRequestInit {
  method?: string;
  headers?: Record<string, string> | Array<[string, string]> | { forEach(fn: (v: string, k: string) => void): void };
  /** A string (sent as UTF-8) or bytes. */
  body?: string | Uint8Array | ArrayBuffer | null;
  redirect?: 'follow' | 'error' | 'manual';
  signal?: AbortSignal | null;
}

/** The response headers (the subset of the WHATWG Headers the clients read): names are case-insensitive. */
export interface HttpHeaders {
  /** The value (repeated headers joined with `, `), or null. */
  get(name: string): string | null;
  has(name: string): boolean;
  forEach(fn: (value: string, name: string) => void): void;
}

/** One read of a body: a chunk, or the end. */
export type BodyRead = { done: false; value: Uint8Array } | { done: true; value?: undefined };

/** A reader of a response body (as a WHATWG stream reader: read, cancel, releaseLock). */
export interface BodyReader {
  read(): Promise<BodyRead>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** A response body: read through a reader, or cancelled unread. */
export interface HttpBody {
  getReader(): BodyReader;
  cancel(reason?: unknown): Promise<void>;
}

/** What the transport answers: the subset of a WHATWG Response the clients use (a Response satisfies it too). */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: HttpHeaders;
  /** null for a status or method without a body (204, 304, HEAD …). */
  readonly body: HttpBody | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** A fetch-like function answering HttpResponse (transportFetch, or the global fetch). */
export type HttpFetch = (input: string | URL, init?: HttpRequestInit) => Promise<HttpResponse>;

// Switches TCP keep-alive on once the socket is connected (never before: see the header).
function keepAliveAfterConnect(socket: netNs.Socket, event: 'connect' | 'secureConnect'): netNs.Socket {
  socket.once(event, () => {
    try {
      socket.setKeepAlive(true, 15_000);
    } catch {
      // a platform without keep-alive: the connection still works
    }
  });
  return socket;
}

/** The networking modules and connection pools, loaded on first use. */
interface Net {
  http: typeof httpNs;
  https: typeof httpsNs;
  plainAgent: httpNs.Agent;
  tlsAgent: httpsNs.Agent;
}
let loaded: Net | null = null;

// Loads node:http/https on first use, not at import: a V8 startup snapshot cannot hold node:http, and a command that
// makes no request loads none of it.
function net(): Net {
  if (loaded) return loaded;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const http = require('node:http') as typeof httpNs;
  const https = require('node:https') as typeof httpsNs;
  const netMod = require('node:net') as typeof netNs;
  const tls = require('node:tls') as typeof tlsNs;
  /* eslint-enable @typescript-eslint/no-require-imports */
  // An http.Agent whose sockets get keep-alive only after they connect.
  class PlainAgent extends http.Agent {
    // Opens the TCP connection without the keepAlive option (Node passes it through to net.connect otherwise).
    override createConnection(options: netNs.NetConnectOpts): netNs.Socket {
      return keepAliveAfterConnect(netMod.connect({ ...options, keepAlive: false }), 'connect');
    }
  }
  // The TLS twin of PlainAgent.
  class TlsAgent extends https.Agent {
    // Opens the TLS connection without the keepAlive option.
    override createConnection(options: tlsNs.ConnectionOptions): netNs.Socket {
      return keepAliveAfterConnect(
        tls.connect({ ...options, keepAlive: false } as tlsNs.ConnectionOptions),
        'secureConnect',
      );
    }
  }
  const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: 2, timeout: IDLE_SOCKET_MS };
  loaded = { http, https, plainAgent: new PlainAgent(agentOptions), tlsAgent: new TlsAgent(agentOptions) };
  return loaded;
}

// The request body as bytes (the clients send strings and byte arrays only).
function bodyBytes(body: HttpRequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('transport: only string and byte bodies are supported');
}

// The request headers as a plain object with lower-case names (repeated names joined as Headers does).
function headerRecord(init: HttpRequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (v: string, k: string): void => {
    const name = k.toLowerCase();
    out[name] = out[name] === undefined ? String(v) : `${out[name]}, ${v}`;
  };
  if (init === undefined) return out;
  if (Array.isArray(init)) for (const [k, v] of init) add(v, k);
  else if (typeof (init as { forEach?: unknown }).forEach === 'function')
    (init as { forEach(fn: (v: string, k: string) => void): void }).forEach(add);
  else for (const [k, v] of Object.entries(init as Record<string, string>)) add(v, k);
  return out;
}

// The decoded body stream of a response (gzip, deflate and br, as fetch decodes them).
function decoded(res: httpNs.IncomingMessage): NodeJS.ReadableStream & { destroy(err?: Error): void } {
  const enc = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (enc !== 'gzip' && enc !== 'x-gzip' && enc !== 'deflate' && enc !== 'br') return res;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const zlib = require('node:zlib') as typeof zlibNs;
  const opts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    enc === 'deflate'
      ? zlib.createInflate(opts)
      : enc === 'br'
        ? zlib.createBrotliDecompress()
        : zlib.createGunzip(opts);
  res.on('error', (err) => decoder.destroy(err));
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

/** Response headers from Node's raw header list (names case-insensitive, repeated values joined with `, `). */
class ResponseHeaders implements HttpHeaders {
  private readonly map = new Map<string, string>();
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!.trim();
      const had = this.map.get(name);
      this.map.set(name, had === undefined ? value : `${had}, ${value}`);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  forEach(fn: (value: string, name: string) => void): void {
    for (const name of [...this.map.keys()].sort()) fn(this.map.get(name)!, name);
  }
}

/** The abort reason of a signal as an Error (AbortSignal.timeout and abort() give a DOMException). */
function abortReason(signal: AbortSignal | null | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new DOMException('This operation was aborted', 'AbortError');
}

/** Errors as fetch reports them: a TypeError whose cause is the network error. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/**
 * A body read chunk by chunk from a Node stream: each read() takes what has arrived (or waits for the next chunk,
 * the end or an error); cancel() destroys the stream. A body can be read once.
 */
class StreamBody implements HttpBody {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure: Error | null = null;
  private waiting: (() => void) | null = null;
  private locked = false;

  constructor(private readonly stream: NodeJS.ReadableStream & { destroy(err?: Error): void }) {
    stream.on('data', (chunk: Buffer) => {
      this.queue.push(chunk);
      // Hold back the producer while a chunk waits to be read (bounded buffering, as a stream with backpressure).
      stream.pause();
      this.wake();
    });
    stream.on('end', () => {
      this.ended = true;
      this.wake();
    });
    stream.on('error', (err: Error) => {
      this.failure ??= err;
      this.wake();
    });
    stream.on('close', () => {
      if (!this.ended) this.failure ??= new Error('the connection closed before the body ended');
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.();
  }

  private async read(): Promise<BodyRead> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        if (this.queue.length === 0 && !this.ended && !this.failure) this.stream.resume();
        return { done: false, value: chunk };
      }
      if (this.failure) throw this.failure;
      if (this.ended) return { done: true, value: undefined };
      this.stream.resume();
      await new Promise<void>((r) => (this.waiting = r));
    }
  }

  getReader(): BodyReader {
    if (this.locked) throw new TypeError('the body is already being read');
    this.locked = true;
    return {
      read: () => this.read(),
      cancel: (reason?: unknown) => this.cancel(reason),
      releaseLock: () => undefined,
    };
  }

  cancel(reason?: unknown): Promise<void> {
    this.queue.length = 0;
    if (!this.ended) {
      this.failure ??= reason instanceof Error ? reason : new DOMException('The body was cancelled', 'AbortError');
      this.stream.destroy();
    }
    this.wake();
    return Promise.resolve();
  }

  /** Every byte of the body. */
  async all(): Promise<Buffer> {
    const reader = this.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    return Buffer.concat(chunks);
  }
}

/** The transport's response. */
class TransportResponse implements HttpResponse {
  readonly ok: boolean;
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: HttpHeaders,
    readonly body: StreamBody | null,
  ) {
    this.ok = status >= 200 && status <= 299;
  }
  private bytes(): Promise<Buffer> {
    return this.body ? this.body.all() : Promise.resolve(Buffer.alloc(0));
  }
  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
}

// One request/response exchange (no redirects).
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | null | undefined,
) {
  return new Promise<httpNs.IncomingMessage>((resolve, reject) => {
    const isTls = url.protocol === 'https:';
    const { http, https, plainAgent, tlsAgent } = net();
    const outgoing: Record<string, string> = { ...headers };
    outgoing['accept-encoding'] ??= 'gzip, deflate, br';
    if (body) outgoing['content-length'] = String(body.byteLength);
    else if (method !== 'GET' && method !== 'HEAD') outgoing['content-length'] = '0';
    const req = (isTls ? https : http).request(url, {
      method,
      headers: outgoing,
      agent: isTls ? tlsAgent : plainAgent,
    });
    const onAbort = (): void => {
      req.destroy();
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? abortReason(signal) : fetchFailed(err));
    });
    req.end(body);
  });
}

/** A fetch-compatible function built on node:http/node:https (see the header). */
export async function transportFetch(input: string | URL, init: HttpRequestInit = {}): Promise<HttpResponse> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  let url = new URL(input);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = headerRecord(init.headers);
  let body = bodyBytes(init.body);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw fetchFailed(new Error(`unsupported protocol ${url.protocol}`));
    const res = await exchange(url, method, headers, body, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECT.has(status) && location && init.redirect !== 'manual') {
      res.destroy();
      // As fetch says it: a refused redirect is 'unexpected redirect' (the CLI never replays its token elsewhere).
      if (init.redirect === 'error') throw fetchFailed(new Error('unexpected redirect'));
      if (hop >= MAX_REDIRECTS) throw fetchFailed(new Error(`too many redirects (${MAX_REDIRECTS})`));
      const next = new URL(location, url);
      if (next.origin !== url.origin) delete headers.authorization;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      url = next;
      continue;
    }
    if (status < 200 || status > 599) {
      res.destroy();
      throw fetchFailed(new Error(`unexpected HTTP status ${status}`));
    }
    const responseHeaders = new ResponseHeaders(res.rawHeaders);
    const statusText = res.statusMessage ?? '';
    if (NULL_BODY.has(status) || method === 'HEAD') {
      res.resume();
      return new TransportResponse(status, statusText, responseHeaders, null);
    }
    const stream = decoded(res);
    const onAbort = (): void => void stream.destroy(abortReason(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.once('close', () => signal?.removeEventListener('abort', onAbort));
    return new TransportResponse(status, statusText, responseHeaders, new StreamBody(stream));
  }
}
