// Serves the web console under /console from memory: hashed assets cached for a year, index.html revalidated, a
// strict Content-Security-Policy (scripts from this origin only, no inline script; styles from this origin plus the
// editor's own <style> elements carrying the per-response nonce), for any client path.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRule } from '../auth/auth.decorators';
import { type ConsoleAsset, type ConsoleBundle, loadConsole } from './console-assets';

/** Placeholder in index.html replaced by each response's style nonce (read by the editor for its <style> tags). */
export const NONCE_PLACEHOLDER = '%CSP_NONCE%';

// The console's Content-Security-Policy: nothing but this origin; no inline or eval'd script, no framing; inline
// <style> only with this response's nonce.
export function consoleCsp(styleNonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const PUBLIC: AuthRule = { kind: 'public' };

// Sends one in-memory file: 304 on a matching If-None-Match, gzip when the client takes it.
function send(request: FastifyRequest, reply: FastifyReply, asset: ConsoleAsset): FastifyReply {
  void reply
    .headers(SECURITY_HEADERS)
    .header('content-security-policy', consoleCsp(randomBytes(16).toString('base64')));
  void reply.header('cache-control', asset.cacheControl).header('etag', asset.etag);
  void reply.header('vary', 'accept-encoding');
  const inm = request.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag)) return reply.code(304).send();
  void reply.type(asset.type);
  const accepts = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (asset.gzip && accepts) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

// Sends index.html with a fresh style nonce in its CSP and in the page (never cached, so no ETag).
function sendPage(reply: FastifyReply, index: ConsoleAsset): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .headers(SECURITY_HEADERS)
    .header('content-security-policy', consoleCsp(nonce))
    .header('cache-control', 'no-cache, no-store')
    .type(index.type)
    .send(index.body.toString('utf8').replaceAll(NONCE_PLACEHOLDER, nonce));
}

// A JSON error in the API's one error shape.
function notFound(request: FastifyRequest, reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(404)
    .headers(SECURITY_HEADERS)
    .header('content-security-policy', consoleCsp(randomBytes(16).toString('base64')))
    .header('cache-control', 'no-store')
    .send({ error: { code: 'not_found', message, requestId: request.id } });
}

// Registers GET /console, /console/ and /console/* on the Fastify instance, serving the build found in `dir`.
export function registerConsole(fastify: FastifyInstance, dir: string): ConsoleBundle {
  const bundle = loadConsole(dir);
  const unbuilt = `The web console is not built (no ${dir}/index.html): run npm run build`;
  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    bundle.index ? sendPage(reply, bundle.index) : notFound(request, reply, unbuilt);
  fastify.get('/console', { config: { authRule: PUBLIC } }, (request, reply) => page(request, reply));
  fastify.get('/console/*', { config: { authRule: PUBLIC } }, (request, reply) => {
    const rel = (request.params as { '*': string })['*'];
    const asset = bundle.files.get(rel);
    if (asset && rel !== 'index.html') return send(request, reply, asset);
    // Build output that is not there is a 404 (never HTML in place of a script); any other path is a console page.
    if (rel.startsWith('assets/') || /\.[a-z0-9]+$/i.test(rel)) {
      return notFound(request, reply, `No console file ${rel}`);
    }
    return page(request, reply);
  });
  return bundle;
}
