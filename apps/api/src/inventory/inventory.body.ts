// Body parser of inventory uploads: JSON, optionally gzip, bounded compressed and inflated, bounded nesting depth.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { MAX_INVENTORY_BYTES } from '@hookwarden/hook-core';
import { nestedDeeperThan } from '../common/json-depth';

/** The media type of inventory uploads. */
export const INVENTORY_MEDIA_TYPE = 'application/vnd.hookwarden.inventory+json';
/** Deeper JSON than this is refused before parsing (an inventory is four levels deep). */
const MAX_DEPTH = 32;

const gunzipAsync = promisify(gunzip);

/** An error Fastify renders with its status (the global filter turns it into the one error shape). */
class BodyError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

// Registers the parser for INVENTORY_MEDIA_TYPE.
export function registerInventoryParser(fastify: FastifyInstance): void {
  if (fastify.hasContentTypeParser(INVENTORY_MEDIA_TYPE)) return;
  fastify.addContentTypeParser(
    INVENTORY_MEDIA_TYPE,
    { parseAs: 'buffer', bodyLimit: MAX_INVENTORY_BYTES },
    (req, body, done) => {
      void (async () => {
        const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
        let raw = body as Buffer;
        // The digest of the bytes as sent, for signed requests' Content-Digest.
        (req as { bodyDigest?: Buffer }).bodyDigest = createHash('sha256').update(raw).digest();
        if (encoding === 'gzip') {
          try {
            raw = await gunzipAsync(raw, { maxOutputLength: MAX_INVENTORY_BYTES });
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            throw code === 'ERR_BUFFER_TOO_LARGE'
              ? new BodyError(413, `Inventory inflates to more than ${MAX_INVENTORY_BYTES} bytes`)
              : new BodyError(400, `Invalid gzip body: ${(err as Error).message}`);
          }
        } else if (encoding !== 'identity') {
          throw new BodyError(415, `Unsupported Content-Encoding ${encoding} (use gzip or none)`);
        }
        const text = raw.toString('utf8');
        if (nestedDeeperThan(text, MAX_DEPTH))
          throw new BodyError(400, `Inventory JSON nested deeper than ${MAX_DEPTH} levels`);
        try {
          return JSON.parse(text) as unknown;
        } catch (err) {
          throw new BodyError(400, `Inventory is not valid JSON: ${(err as Error).message}`);
        }
      })().then(
        (value) => done(null, value),
        (err: Error) => done(err, undefined),
      );
    },
  );
}
