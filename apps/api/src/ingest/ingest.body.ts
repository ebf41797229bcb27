// Fastify body parser for hook-run uploads: NDJSON, optionally gzip-encoded, with a cap on inflated bytes.
import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const NDJSON = 'application/x-ndjson';

/** An NDJSON upload: the text (inflated from gzip when it came compressed) and its size in bytes. */
export class NdjsonBody {
  constructor(
    readonly text: string,
    /** Inflated size in bytes. */
    readonly bytes: number,
  ) {}
}

/** An error Fastify renders with its status (the global filter turns it into the one error shape). */
class BodyError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

// Reads the raw body stream (inflating gzip), refusing beyond `maxBytes` either compressed or inflated.
function readBody(req: FastifyRequest, payload: NodeJS.ReadableStream, maxBytes: number): Promise<NdjsonBody> {
  return new Promise((resolve, reject) => {
    const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip') {
      reject(new BodyError(415, `Unsupported Content-Encoding ${encoding} (use gzip or none)`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let raw = 0;
    let done = false;
    // The digest of the bytes as sent (compressed when gzip), for signed requests' Content-Digest.
    const digest = createHash('sha256');
    const fail = (err: Error): void => {
      if (done) return;
      done = true;
      payload.unpipe?.();
      reject(err);
    };
    payload.on('data', (chunk: Buffer) => {
      raw += chunk.length;
      if (raw > maxBytes) fail(new BodyError(413, `Upload larger than ${maxBytes} bytes`));
      else digest.update(chunk);
    });
    const source = encoding === 'gzip' ? payload.pipe(createGunzip()) : payload;
    source.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        fail(new BodyError(413, `Upload inflates to more than ${maxBytes} bytes`));
        (source as unknown as { destroy?: () => void }).destroy?.();
        return;
      }
      chunks.push(chunk);
    });
    source.on('error', (err: Error) =>
      fail(encoding === 'gzip' ? new BodyError(400, `Invalid gzip body: ${err.message}`) : err),
    );
    source.on('end', () => {
      if (done) return;
      done = true;
      (req as { bodyDigest?: Buffer }).bodyDigest = digest.digest();
      const inflated = Buffer.concat(chunks);
      resolve(new NdjsonBody(inflated.toString('utf8'), size));
    });
  });
}

// Registers the NDJSON parser (gzip or plain); other content types keep Fastify's parsers.
export function registerNdjsonParser(fastify: FastifyInstance, maxBytes: number): void {
  if (fastify.hasContentTypeParser(NDJSON)) return;
  fastify.addContentTypeParser(NDJSON, (req, payload, done) => {
    readBody(req, payload, maxBytes).then(
      (text) => done(null, text),
      (err: Error) => done(err, undefined),
    );
  });
}
