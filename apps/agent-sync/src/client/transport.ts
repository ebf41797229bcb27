// The agent's HTTP transport: a fetch-compatible function on node:http/node:https. Node's built-in fetch (undici)
// calls setKeepAlive on a socket before it connects, which Wine (and so the agent under it) rejects with
// `connect UNKNOWN`; here keep-alive is switched on after 'connect'. Bounded: a small socket pool, response headers
// within Node's header size limit, at most 5 redirects, an AbortSignal that ends the request and the body stream.
// The answer is a WHATWG Response whose body streams (and is decoded) as it arrives, like fetch's.
import type * as httpNs from 'node:http';
import type * as httpsNs from 'node:https';
import type * as netNs from 'node:net';
import { Readable } from 'node:stream';
import type * as tlsNs from 'node:tls';
import zlib from 'node:zlib';

/** How long an idle pooled connection is kept before it is closed. */
const IDLE_SOCKET_MS = 30_000;
/** Parallel connections per host (the agent makes a few at most: long poll, uploads, status). */
const MAX_SOCKETS = 8;
const MAX_REDIRECTS = 5;
/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

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

// Loads node:http/https on first use, not at import: the CLI's V8 startup snapshot cannot hold node:http.
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

// The request body as bytes (the agent sends strings and byte arrays only).
function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('transport: only string and byte bodies are supported');
}

// The decoded body stream of a response (gzip, deflate and br, as fetch decodes them).
function decoded(res: httpNs.IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const opts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    enc === 'gzip' || enc === 'x-gzip'
      ? zlib.createGunzip(opts)
      : enc === 'deflate'
        ? zlib.createInflate(opts)
        : enc === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) return res;
  res.on('error', (err) => decoder.destroy(err));
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

// The WHATWG headers of a Node response.
function headersOf(res: httpNs.IncomingMessage): Headers {
  const h = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // a header value fetch would refuse too: left out
    }
  }
  return h;
}

/** The abort reason of a signal as an Error (AbortSignal.timeout and abort() give a DOMException). */
function abortReason(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new DOMException('This operation was aborted', 'AbortError');
}

/** Errors as fetch reports them: a TypeError whose cause is the network error. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

// One request/response exchange (no redirects).
function exchange(url: URL, method: string, headers: Headers, body: Buffer | undefined, signal?: AbortSignal) {
  return new Promise<httpNs.IncomingMessage>((resolve, reject) => {
    const isTls = url.protocol === 'https:';
    const { http, https, plainAgent, tlsAgent } = net();
    const outgoing: Record<string, string> = {};
    headers.forEach((v, k) => (outgoing[k] = v));
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

/** A fetch-compatible function built on node:http/node:https (see the header for why the agent has one). */
export async function transportFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  let url = new URL(input);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  let body = bodyBytes(init.body);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw fetchFailed(new Error(`unsupported protocol ${url.protocol}`));
    const res = await exchange(url, method, headers, body, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECT.has(status) && location && init.redirect !== 'manual') {
      res.destroy();
      if (init.redirect === 'error' || hop >= MAX_REDIRECTS)
        throw fetchFailed(new Error(`too many redirects (${MAX_REDIRECTS})`));
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers.delete('authorization');
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      url = next;
      continue;
    }
    if (status < 200 || status > 599) {
      res.destroy();
      throw fetchFailed(new Error(`unexpected HTTP status ${status}`));
    }
    const responseHeaders = headersOf(res);
    if (NULL_BODY.has(status) || method === 'HEAD') {
      res.resume();
      return new Response(null, { status, headers: responseHeaders });
    }
    const stream = decoded(res);
    const onAbort = (): void => void stream.destroy(abortReason(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.once('close', () => signal?.removeEventListener('abort', onAbort));
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
      status,
      headers: responseHeaders,
    });
  }
}
