// The built web console (apps/console/dist) loaded into memory once: each file with its type, ETag, cache policy
// and a gzip copy. Pure loading and lookup; console.routes.ts serves it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Largest console build loaded (a sanity bound: the real one is a few MB). */
export const MAX_CONSOLE_BYTES = 64 * 1024 * 1024;

/** Hashed build output: the name changes with the content, so it may be cached for a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and unhashed files: always revalidated, so a new build is picked up at once. */
export const REVALIDATE = 'no-cache';

export interface ConsoleAsset {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  etag: string;
  cacheControl: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export interface ConsoleBundle {
  /** Files by their path under /console/ (e.g. `assets/index-1a2b3c.js`). */
  files: Map<string, ConsoleAsset>;
  index: ConsoleAsset | null;
}

// Default location of the console build: apps/console/dist beside this package (from src/ or dist/).
export function defaultConsoleDir(): string {
  return path.resolve(__dirname, '../../../console/dist');
}

// Reads every file of a console build (nothing when the directory is missing: the console is not built).
export function loadConsole(dir: string): ConsoleBundle {
  const files = new Map<string, ConsoleAsset>();
  let total = 0;
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        walk(r);
        continue;
      }
      if (!e.isFile()) continue;
      const full = path.join(dir, r);
      total += statSync(full).size;
      if (total > MAX_CONSOLE_BYTES) throw new Error(`console build in ${dir} exceeds ${MAX_CONSOLE_BYTES} bytes`);
      files.set(r, toAsset(r, readFileSync(full)));
    }
  };
  walk('');
  return { files, index: files.get('index.html') ?? null };
}

// One file's response: type by extension, strong ETag, year-long caching for hashed assets under assets/.
function toAsset(rel: string, body: Buffer): ConsoleAsset {
  const type = TYPES[path.extname(rel).toLowerCase()] ?? 'application/octet-stream';
  const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024;
  return {
    body,
    gzip: compressible ? gzipSync(body, { level: 9 }) : null,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    cacheControl: rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE,
  };
}
