// The launcher behind the checked-in workspace bins (libs/hook-core/bin, apps/agent-sync/bin, apps/cli/bin): runs the
// bin's bundle (one file with every module inside, made by scripts/bundle-bins.mjs from the compiled packages) with a
// V8 code cache beside it, so a command compiles almost nothing. The bundle is remade when a package in the bin's
// chain was compiled after it (its dist/.tsbuildinfo is newer); without esbuild it runs the compiled dist/ as before.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Each workspace bin: its compiled entry, its bundle, and the packages it is built from (tsc stamps). */
const BINS = [
  {
    name: 'zerotwo-hooks',
    main: 'libs/hook-core/dist/cli/main.js',
    bundle: 'libs/hook-core/dist/launch/zerotwo-hooks.cjs',
    chain: ['libs/hook-core'],
  },
  {
    name: 'hookwarden-agent',
    main: 'apps/agent-sync/dist/cli/main.js',
    bundle: 'apps/agent-sync/dist/launch/hookwarden-agent.cjs',
    chain: ['libs/hook-core', 'apps/agent-sync'],
    // The daemon's V8 flags (apps/agent-sync/src/cli/daemon-flags.ts, which the agent's main sets too): set here before
    // the bundle is compiled, since V8 rejects a code cache made under other flags (the cache is written at exit).
    v8Flags: (args) =>
      args[0] === 'run' ? require(path.join(root, 'apps/agent-sync/dist/cli/daemon-flags.js')).daemonV8Flags(args) : '',
  },
  {
    name: 'hookwarden',
    main: 'apps/cli/dist/cli/main.js',
    bundle: 'apps/cli/dist/launch/hookwarden.cjs',
    chain: ['libs/hook-core', 'libs/admin-client', 'apps/cli'],
  },
];

/** A file's stat, or undefined when it is missing. */
const stat = (file) => fs.statSync(file, { throwIfNoEntry: false });

/** The bundle's stat when it is newer than every package it was made from, else undefined. */
function freshBundle(bin) {
  const st = stat(path.join(root, bin.bundle));
  if (!st) return undefined;
  for (const pkg of bin.chain) {
    const stamp = stat(path.join(root, pkg, 'dist', '.tsbuildinfo'));
    if (!stamp || stamp.mtimeMs > st.mtimeMs) return undefined;
  }
  return st;
}

/** Remakes the bundle in a child process; false when that cannot be done here (no esbuild, a read-only tree). */
function rebundle(bin) {
  const { spawnSync } = require('node:child_process');
  const made = spawnSync(process.execPath, [path.join(root, 'scripts', 'bundle-bins.mjs'), bin.name], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'ignore'],
    timeout: 60_000,
  });
  return made.status === 0;
}

/** Which code cache a command line uses: one per command (what a run compiled is what the next such run needs). */
function cacheKey() {
  const first = process.argv[2] ?? '';
  return /^-{0,2}[a-z][a-z0-9-]{0,30}$/.test(first) ? first : 'other';
}

/** Runs a bundle as the main module, from its code cache when one matches (written at exit when none did). */
function runBundle(file, st) {
  const Module = require('node:module');
  const vm = require('node:vm');
  const source = fs.readFileSync(file, 'latin1'); // bundle-bins.mjs writes it so
  // The bundle's size and time are in the name: V8 checks a cache against the source's length only.
  const cacheFile = `${file.slice(0, -4)}.${cacheKey()}.${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}.cache`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit the cache holds every function this run compiled, not only the top level.
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    });
  }
  const dir = path.dirname(file);
  const m = new Module(file, null);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dir);
  m.id = '.';
  script.runInThisContext()(m.exports, Module.createRequire(file), m, file, dir);
}

/**
 * Runs the bin `name`. `compile()` is called when its package was never compiled (it builds it or exits); after it
 * the bundle is made, or, when it cannot be, the compiled entry runs.
 */
function run(name, compile) {
  const bin = BINS.find((b) => b.name === name);
  let st = freshBundle(bin);
  if (!st) {
    const main = path.join(root, bin.main);
    if (!stat(main)) compile(main);
    if (!rebundle(bin) || !(st = freshBundle(bin))) {
      require(main);
      return;
    }
  }
  const flags = bin.v8Flags?.(process.argv.slice(2));
  if (flags) require('node:v8').setFlagsFromString(flags);
  runBundle(path.join(root, bin.bundle), st);
}

module.exports = { BINS, run };
