// Bounded-depth JSON: a linear scan refuses documents nested deeper than a limit before JSON.parse and the code after
// it (stringify, validation, hashing) recurse into them.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Deepest nesting of arrays/objects accepted in any JSON request body or uploaded line. */
export const MAX_JSON_DEPTH = 100;

// True when a JSON text nests arrays/objects deeper than `limit` (brackets outside strings). Linear time: a text with
// at most `limit` opening brackets in all (most records: a few dozen) is judged by native indexOf scans alone, any
// other by one character scan that stops once beyond the limit.
export function nestedDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let opening = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) {
      if (++opening > limit) return depthScan(text, limit) > limit;
    }
  }
  return false;
}

// The nesting depth of a JSON text (brackets outside strings), stopping early once beyond `limit`.
function depthScan(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A body error Fastify renders with its status (the error filter gives it the one error shape). */
class JsonBodyError extends Error {
  readonly statusCode = 400;
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

// Replaces Fastify's application/json parser with one that refuses bodies nested deeper than MAX_JSON_DEPTH (400)
// and otherwise parses as Fastify does (prototype-poisoning keys refused).
export function registerBoundedJsonParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    // The digest of the bytes as received, for signed agent requests' Content-Digest (no copy kept).
    (req as { bodyDigest?: Buffer }).bodyDigest = createHash('sha256').update(body).digest();
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestedDeeperThan(text)) {
      done(
        new JsonBodyError(`JSON body nested deeper than ${MAX_JSON_DEPTH} levels`, 'FST_ERR_CTP_JSON_TOO_DEEP'),
        undefined,
      );
      return;
    }
    void parse(req, text, done);
  });
}
