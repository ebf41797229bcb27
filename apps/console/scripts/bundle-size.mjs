// Measures the console's first-screen JavaScript from the build manifest: index.html's entry chunk and its static
// imports (what the sign-in screen loads), plus the Overview page chunk and its imports (the first screen after
// sign-in). gzip level 9, as served by the API. `node apps/console/scripts/bundle-size.mjs` prints a table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
/** The budget the issue sets for the first screen's JavaScript, gzipped. */
export const FIRST_SCREEN_BUDGET = 300 * 1024;

// Chunk keys reachable from `start` through static imports.
function closure(manifest, start) {
  const seen = new Set();
  const walk = (key) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    for (const i of manifest[key].imports ?? []) walk(i);
  };
  walk(start);
  return seen;
}

// gzip sizes of the first screen: { entry, overview, total, files, allJs } in bytes.
export function measure(dist = DIST) {
  const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8'));
  const gz = (file) => gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;
  const entryKeys = closure(manifest, 'index.html');
  const overviewKeys = closure(manifest, 'src/pages/overview.tsx');
  const sum = (keys) => [...keys].reduce((n, k) => n + gz(manifest[k].file), 0);
  const first = new Set([...entryKeys, ...overviewKeys]);
  const allJs = Object.values(manifest)
    .map((c) => c.file)
    .filter((f, i, a) => f.endsWith('.js') && a.indexOf(f) === i)
    .reduce((n, f) => n + gz(f), 0);
  return {
    entry: sum(entryKeys),
    overview: sum([...overviewKeys].filter((k) => !entryKeys.has(k))),
    total: sum(first),
    files: [...first].map((k) => manifest[k].file),
    allJs,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = measure();
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`sign-in screen (entry + static imports): ${kb(m.entry)} gzipped`);
  console.log(`overview page chunk(s):                  ${kb(m.overview)} gzipped`);
  console.log(`first screen after sign-in:              ${kb(m.total)} gzipped (budget ${kb(FIRST_SCREEN_BUDGET)})`);
  console.log(`all JavaScript of every page:            ${kb(m.allJs)} gzipped`);
  process.exit(m.total <= FIRST_SCREEN_BUDGET ? 0 : 1);
}
