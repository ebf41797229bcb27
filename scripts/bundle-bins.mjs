// `node scripts/bundle-bins.mjs [NAME ...]` (part of `npm run build`): one CommonJS file per workspace bin, bundled
// from the compiled packages (dist/, what tsc made and the tests run) with every dependency inside, so a command
// starts by reading one file instead of resolving and compiling dozens. The checked-in launchers (bin/*) run it
// through scripts/run-bin.cjs, which rebuilds it when a package in its chain was compiled after it.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { root } from './lib.mjs';
import bins from './run-bin.cjs';

/** Dependencies left out of the bundles: large, and needed only off the common paths (validation, RE2, diffs). */
export const LAZY_DEPENDENCIES = ['zod', 're2js', 'diff'];

/** Writes the bundle of one bin (atomically: a running launcher never reads half a file) and drops its old caches. */
export async function bundleBin(bin) {
  const out = path.join(root, bin.bundle);
  const result = await build({
    entryPoints: [path.join(root, bin.main)],
    bundle: true,
    write: false,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // Loaded only by the commands that use them, from node_modules (always there beside a workspace bin), so their
    // bytes are not read, nor their code cache deserialized, by every other command.
    external: LAZY_DEPENDENCIES,
    // Workspace packages through node_modules and their exports (the compiled dist/), not the repository
    // tsconfig's `paths` (which point at their TypeScript sources).
    tsconfigRaw: '{}',
  });
  // The launcher compiles the file inside a function wrapper, where a `#!` line is a syntax error.
  const text = result.outputFiles[0].text.replace(/^#!.*\n/, '');
  // esbuild escapes characters past Latin-1 (a few regexes keep `¹²³`): the file is written and read as Latin-1, one
  // byte a character, so the launcher does no UTF-8 decoding.
  if (/[^\x00-\xff]/.test(text)) throw new Error(`${bin.name}: the bundle has characters past Latin-1`);
  const dir = path.dirname(out);
  mkdirSync(dir, { recursive: true });
  // Code caches of the previous bundle (the launcher names them after the bundle's size and time, too).
  for (const f of safeList(dir))
    if (f.startsWith(`${bin.name}.`) && f.endsWith('.cache')) rmSync(path.join(dir, f), { force: true });
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, text, 'latin1');
  renameSync(tmp, out);
  return out;
}

/** The names in a directory, or none. */
function safeList(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wanted = process.argv.slice(2);
  for (const bin of bins.BINS.filter((b) => wanted.length === 0 || wanted.includes(b.name))) {
    const out = await bundleBin(bin);
    if (wanted.length === 0) console.log(`bundled ${path.relative(root, out)}`);
  }
}
