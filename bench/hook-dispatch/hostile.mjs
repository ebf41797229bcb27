// bench/hook-dispatch/hostile.mjs: dispatch time with a 1 MB single-line hook output (capture excerpts, default
// redaction) and with a `(a+)+$` matcher against crafted tool names, next to a plain `true` hook.
// Run: `node bench/hook-dispatch/hostile.mjs [--dist DIR] [--max-ms N] [--big-iter N]` (`--big-iter 0` skips the 1 MB case) (builds libs/hook-core/dist first unless
// --dist names another build, e.g. one of an older commit, to measure "before").
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const argValue = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const distArg = argValue('--dist');
// A run stops growing the crafted name once one dispatch exceeds this (the old engine is exponential).
const maxMs = Number(argValue('--max-ms') ?? 20_000);
// Dispatches measured for the 1 MB output (the old engine needs minutes for one).
const bigIter = Number(argValue('--big-iter') ?? 5);
if (distArg === undefined) execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: repo, stdio: 'inherit' });
const dist = resolve(distArg ?? join(repo, 'libs/hook-core/dist'));
const core = createRequire(import.meta.url)(join(dist, 'index.js'));

const ITER = 15;
const cwd = tmpdir();
const input = (toolName) => ({
  session_id: 'bench',
  turn_id: 't',
  cwd,
  model: 'm',
  tool_name: toolName,
  tool_use_id: 'c',
  tool_input: { command: 'ls -la' },
});

/** Median of numbers. */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** One managed PreToolUse hook (and optionally a second, user hook with a matcher) as a ready discovery. */
function discoveryOf(command, extraMatcher) {
  const hook = (i, matcher, cmd, managed) => ({
    key: `/bench/h${i}.json:pre_tool_use:0:0`,
    hash: `sha256:${'0'.repeat(64)}`,
    event: 'PreToolUse',
    layer: managed ? 'managed' : 'user',
    sourceFile: `/bench/h${i}.json`,
    groupIndex: 0,
    handlerIndex: 0,
    matcher,
    handler: { type: 'command', command: cmd },
    timeoutSec: 600,
    managed,
    trust: managed ? 'managed' : 'untrusted',
  });
  const hooks = [hook(0, '*', command, true)];
  if (extraMatcher !== undefined) hooks.push(hook(1, extraMatcher, 'true', false));
  return { hooksEnabled: true, featureReason: 'bench', skipped: [], diagnostics: [], hooks };
}

/** Median wall time (ms) of `n` dispatches. */
async function time(discovery, toolName, n = ITER) {
  const xs = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await core.dispatch('PreToolUse', input(toolName), {
      discovery,
      capture: { capture: 'excerpts', maxExcerptBytes: 2048 },
    });
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

const dir = join(tmpdir(), `bench-hostile-${process.pid}`);
mkdirSync(dir, { recursive: true });
const big = join(dir, 'big.sh');
writeFileSync(big, "#!/bin/sh\nhead -c 1048576 /dev/zero | tr '\\0' x\n", { mode: 0o755 });
const results = { dist, node: process.version, iterations: ITER, rows: [] };
const row = (name, ms) => {
  results.rows.push({ name, medianMs: Math.round(ms * 10) / 10 });
  console.log(`${name.padEnd(58)} ${ms.toFixed(1).padStart(10)} ms`);
};

await time(discoveryOf('true'), 'Bash', 3); // warm-up
row('baseline: one managed `true` hook', await time(discoveryOf('true'), 'Bash'));
if (bigIter > 0)
  row('1 MB single-line stdout (excerpts, default redaction)', await time(discoveryOf(big), 'Bash', bigIter));
for (const k of [16, 20, 22, 24, 26, 27, 28, 1000, 100_000]) {
  const tool = `${'a'.repeat(k)}!`;
  const t = await time(discoveryOf('true', '(a+)+$'), tool, 1);
  row(`(a+)+$ matcher vs ${k} × "a" + "!"`, t);
  if (t > maxMs) {
    console.log(`(stopped: one dispatch took over ${maxMs} ms; every further character doubles it)`);
    break;
  }
}
mkdirSync(join(here, 'results'), { recursive: true });
const out = join(here, 'results', `hostile-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`results: ${out}`);
