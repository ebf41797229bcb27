// Routes served by plain Node handlers in front of Fastify (the agents' hot path), through Fastify's serverFactory:
// a matching request never enters Fastify or Nest; every other request goes to Fastify unchanged.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Logger } from '@nestjs/common';
import type { AuthRule } from '../auth/auth.decorators';

/** A raw route: exact path (a query string is allowed), methods, the auth rule it enforces itself, the handler. */
export interface RawRoute {
  methods: readonly string[];
  path: string;
  authRule: AuthRule;
  handle(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): void | Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// The request id of a request: the caller's X-Request-Id when well formed, else a new UUID.
export function requestIdOf(headers: http.IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

// Writes a response in the API's one error shape.
export function sendRawError(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify({ error: { code, message, requestId } });
  res.writeHead(status, {
    ...headers,
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export class RawRouter {
  private readonly logger = new Logger('RawRouter');
  private readonly routes = new Map<string, RawRoute>();
  /** Set when the server starts closing: raw routes then answer 503, as Fastify's return503OnClosing does. */
  closing = false;
  /** Told of every finished raw response (metrics): method, route path, status and seconds taken. */
  onFinished: ((method: string, path: string, status: number, seconds: number) => void) | null = null;

  // Adds a route (one per path).
  add(route: RawRoute): void {
    if (this.routes.has(route.path)) throw new Error(`raw route ${route.path} registered twice`);
    this.routes.set(route.path, route);
  }

  // The registered routes, for route listings and audits.
  list(): RawRoute[] {
    return [...this.routes.values()];
  }

  // Serves the request when a raw route matches; false hands it to Fastify.
  dispatch(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const route = this.routes.get(q === -1 ? url : url.slice(0, q));
    if (!route || !route.methods.includes(req.method ?? '')) return false;
    const requestId = requestIdOf(req.headers);
    const observe = this.onFinished;
    if (observe) {
      const started = process.hrtime.bigint();
      res.once('close', () =>
        observe(req.method ?? '', route.path, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9),
      );
    }
    if (this.closing) {
      sendRawError(res, 503, 'unavailable', 'The server is shutting down; retry later', requestId, {
        connection: 'close',
        'retry-after': '5',
      });
      return true;
    }
    // An unexpected error: logged with the correlation id, answered 500 in the one error shape.
    const fail = (err: unknown): void => {
      this.logger.error({ err, requestId, method: req.method, url }, 'unhandled error');
      sendRawError(res, 500, 'internal', `Internal error (request id ${requestId})`, requestId);
    };
    try {
      const done = route.handle(req, res, requestId);
      if (done) done.catch(fail);
    } catch (err) {
      fail(err);
    }
    return true;
  }

  // Fastify's serverFactory: one HTTP server that tries the raw routes first (timeouts as Fastify sets them).
  serverFactory(): (handler: http.RequestListener) => http.Server {
    return (handler) => {
      const server = http.createServer((req, res) => {
        if (!this.dispatch(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = 72_000;
      return server;
    };
  }
}
