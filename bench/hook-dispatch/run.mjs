// bench/hook-dispatch: engine dispatch vs plain child_process.spawn through the same shell, 100-hook discovery, and
// the per-event process: `zerotwo-hooks dispatch` / `hookwarden-agent hooks dispatch` with one trivial matching hook
// against the physical floor (a Node process running the same hook through `sh -c`) and with no matching hook against
// bare `node -e 0` (NODE_EXTRA_CA_CERTS unset, as on endpoints), and with a shadow layer beside the managed one
// (target 7 of issue 24, on the process the agent waits for; the engine call alone is the in-process shadow row);
// each target is printed with PASS/FAIL.
// Run with `npm run bench:hooks` (`-- --process-only` for the process rows, `-- --shadow-only` for the shadow row). Builds the packages first (tsc -b, the
// bins' bundles) and the Linux endpoint package (npm run package:agent -- --no-windows).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printProcessTable, target, timeProcesses } from '../lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: repo, stdio: 'inherit' });
execFileSync(process.execPath, [join(repo, 'scripts/bundle-bins.mjs')], { cwd: repo, stdio: 'ignore' });
const core = createRequire(import.meta.url)(join(repo, 'libs/hook-core/dist/index.js'));

const ITER = { 1: 300, 5: 200, 20: 200 };
const WARMUP = 20;
const cwd = tmpdir();
const input = {
  session_id: 'bench',
  turn_id: 't',
  cwd,
  model: 'm',
  tool_name: 'Bash',
  tool_use_id: 'c',
  tool_input: { command: 'ls -la' },
  permission_mode: 'default',
};

/** Median of numbers. */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** 95th percentile. */
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

/** N managed hooks running `true`, each from its own file (so none is a duplicate of another). */
function discoveryOf(n) {
  return {
    hooksEnabled: true,
    featureReason: 'bench',
    skipped: [],
    diagnostics: [],
    hooks: Array.from({ length: n }, (_, i) => ({
      key: `/bench/hooks-${i}.json:pre_tool_use:0:0`,
      hash: `sha256:${'0'.repeat(64)}`,
      event: 'PreToolUse',
      layer: 'managed',
      sourceFile: `/bench/hooks-${i}.json`,
      groupIndex: 0,
      handlerIndex: 0,
      matcher: 'Bash',
      handler: { type: 'command', command: 'true' },
      timeoutSec: 600,
      managed: true,
      trust: 'managed',
    })),
  };
}

/** Baseline: spawn the same N commands concurrently through /bin/sh -c, same stdin, wait for all to close. */
function baseline(n) {
  const stdin = JSON.stringify(input);
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((res, rej) => {
          const c = spawn('/bin/sh', ['-c', 'true'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
          c.stdout.on('data', () => {});
          c.stderr.on('data', () => {});
          c.stdin.on('error', () => {});
          c.on('error', rej);
          c.on('close', res);
          c.stdin.end(stdin);
        }),
    ),
  );
}

/** Time one async call in ms. */
async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const results = {
  date: new Date().toISOString(),
  node: process.version,
  platform: process.platform,
  dispatch: [],
  discovery: {},
  process: null,
};
const processOnly = process.argv.includes('--process-only');
// `-- --shadow-only`: only the shadow-layer row.
const shadowOnly = process.argv.includes('--shadow-only');
const rows = [];
for (const n of processOnly || shadowOnly ? [] : [1, 5, 20]) {
  const d = discoveryOf(n);
  const engine = () => core.dispatch('PreToolUse', input, { discovery: d, capture: { capture: 'digests' } });
  const spoolDir = mkdtempSync(join(tmpdir(), 'bench-spool-'));
  const spooled = () =>
    core.dispatch('PreToolUse', input, { discovery: d, capture: { capture: 'excerpts' }, spoolDir });
  for (let i = 0; i < WARMUP; i++) {
    await engine();
    await baseline(n);
  }
  const e = [];
  const b = [];
  const s = [];
  for (let i = 0; i < ITER[n]; i++) {
    // Interleave so machine noise hits both sides alike.
    if (i % 2) {
      b.push(await time(() => baseline(n)));
      e.push(await time(engine));
    } else {
      e.push(await time(engine));
      b.push(await time(() => baseline(n)));
    }
    if (i % 4 === 0) s.push(await time(spooled));
  }
  const r = {
    hooks: n,
    iterations: ITER[n],
    engineMedianMs: median(e),
    engineP95Ms: p95(e),
    baselineMedianMs: median(b),
    baselineP95Ms: p95(b),
    ratio: median(e) / median(b),
    engineWithSpoolMedianMs: median(s),
  };
  results.dispatch.push(r);
  rows.push(r);
}

// Shadow layer (issue 27): 1 enforced + 1 shadow hook (its layer on disk, read per event as the CLI does) against
// 1 enforced hook alone, interleaved in the same run.
if (!processOnly) results.shadow = await benchShadow();
async function benchShadow() {
  const root = mkdtempSync(join(tmpdir(), 'bench-shadow-'));
  mkdirSync(join(root, 'shadow'));
  const req = join(root, 'shadow', 'requirements.toml');
  writeFileSync(
    req,
    '[hooks]\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "true"\n',
  );
  writeFileSync(join(root, 'shadow', 'shadow-release.json'), JSON.stringify({ releaseId: 'bench', version: 'v' }));
  const d = discoveryOf(1);
  const opts = { discovery: d, capture: { capture: 'digests' } };
  const alone = () => core.dispatch('PreToolUse', input, { ...opts, shadow: false });
  const withShadow = () => core.dispatch('PreToolUse', input, { ...opts, shadow: { requirementsPath: req } });
  // Reference: the cost of any second process on this machine (2 enforced hooks).
  const two = discoveryOf(2);
  const twoEnforced = () =>
    core.dispatch('PreToolUse', input, { discovery: two, capture: { capture: 'digests' }, shadow: false });
  const check = await withShadow();
  if (check.shadow?.runs.length !== 1) throw new Error('bench: the shadow hook did not run');
  for (let i = 0; i < WARMUP; i++) {
    await alone();
    await withShadow();
  }
  const a = [];
  const w = [];
  const t = [];
  for (let i = 0; i < 300; i++) {
    if (i % 2) {
      a.push(await time(alone));
      w.push(await time(withShadow));
    } else {
      w.push(await time(withShadow));
      a.push(await time(alone));
    }
    if (i % 3 === 0) t.push(await time(twoEnforced));
  }
  const r = {
    iterations: 300,
    enforcedOnlyMedianMs: median(a),
    withShadowMedianMs: median(w),
    withShadowP95Ms: p95(w),
    ratio: median(w) / median(a),
    twoEnforcedMedianMs: median(t),
    twoEnforcedRatio: median(t) / median(a),
  };
  console.log(
    `\nshadow layer: 1 enforced + 1 shadow hook ${r.withShadowMedianMs.toFixed(2)} ms vs 1 enforced hook alone ${r.enforcedOnlyMedianMs.toFixed(2)} ms (medians, same run) → ratio ${r.ratio.toFixed(3)} (target ≤ 1.10) ${r.ratio <= 1.1 ? 'PASS' : 'FAIL'}; reference: 2 enforced hooks ${r.twoEnforcedMedianMs.toFixed(2)} ms → ${r.twoEnforcedRatio.toFixed(3)}`,
  );
  return r;
}

// Discovery of a 100-hook configuration (user hooks.json: 11 events, groups of 3 handlers).
if (!processOnly && !shadowOnly) benchDiscovery();
function benchDiscovery() {
  const root = mkdtempSync(join(tmpdir(), 'bench-disc-'));
  const home = join(root, 'home');
  const sys = join(root, 'sys');
  mkdirSync(home);
  mkdirSync(sys);
  const events = core.HOOK_EVENTS;
  const hooks = {};
  for (let i = 0; i < 100; i++) {
    const ev = events[i % events.length];
    hooks[ev] ??= [];
    const groups = hooks[ev];
    if (groups.length === 0 || groups[groups.length - 1].hooks.length === 3)
      groups.push({ matcher: ev === 'Stop' || ev === 'UserPromptSubmit' ? undefined : 'Bash|Edit', hooks: [] });
    groups[groups.length - 1].hooks.push({ type: 'command', command: `/usr/local/bin/hook-${i} --flag`, timeout: 30 });
  }
  writeFileSync(join(home, 'hooks.json'), JSON.stringify({ hooks }, null, 2));
  const opts = { home, systemDir: sys, requirementsPath: join(sys, 'requirements.toml'), cwd: root };
  const count = core.discoverHooks(opts).hooks.length;
  const dt = [];
  for (let i = 0; i < 50; i++) core.discoverHooks(opts);
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    core.discoverHooks(opts);
    dt.push(performance.now() - t0);
  }
  results.discovery = { hooks: count, iterations: 300, medianMs: median(dt), p95Ms: p95(dt) };
}

// Table.
const f = (x) => x.toFixed(2).padStart(8);
if (!processOnly && !shadowOnly) printEngineTables();
function printEngineTables() {
  console.log(
    '\nhook dispatch: engine dispatch() vs plain child_process.spawn via /bin/sh -c (same stdin), medians in ms',
  );
  console.log('hooks | iterations |   engine |  baseline |  ratio | engine p95 | baseline p95 | engine+spool(fsync)');
  for (const r of rows)
    console.log(
      `${String(r.hooks).padStart(5)} | ${String(r.iterations).padStart(10)} | ${f(r.engineMedianMs)} | ${f(r.baselineMedianMs)}  | ${r.ratio.toFixed(3).padStart(6)} | ${f(r.engineP95Ms)}   | ${f(r.baselineP95Ms)}     | ${f(r.engineWithSpoolMedianMs)}`,
    );
  const r20 = rows.find((r) => r.hooks === 20);
  console.log(
    `target: engine median ≤ 1.10 × baseline at 20 hooks → ${r20.ratio.toFixed(3)} ${r20.ratio <= 1.1 ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `\ndiscovery of a ${results.discovery.hooks}-hook configuration: median ${results.discovery.medianMs.toFixed(3)} ms, p95 ${results.discovery.p95Ms.toFixed(3)} ms (target < 10 ms) → ${results.discovery.medianMs < 10 ? 'PASS' : 'FAIL'}`,
  );
}

// The per-event process: each hook event on an endpoint that goes through a CLI is a new process.
results.process = shadowOnly ? null : benchProcesses();

const out = join(here, 'results');
mkdirSync(out, { recursive: true });
const file = join(out, `${results.date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(results, null, 2));
console.log(`results: ${file}`);

/**
 * The per-event process, the way an agent starts it for each hook event: the npm bins (node_modules/.bin: the
 * launcher, the bundle and its code cache), the packaged single executables, the packaged bundles on node and the
 * plain tsc output, against the physical floor (a Node process that runs the same hook through `sh -c`) and
 * `node -e 0`, all interleaved in one run.
 */
function benchProcesses() {
  const RUNS = Number(process.env.BENCH_PROCESS_RUNS ?? 40);
  const pkgRoot = join(repo, 'dist', 'package');
  const findPkg = () =>
    existsSync(pkgRoot)
      ? readdirSync(pkgRoot).find(
          (n) => n.startsWith('hookwarden-agent-') && !n.endsWith('.gz') && !n.includes('windows'),
        )
      : undefined;
  // The package is made from the current source every run (a stale one would measure other code).
  execFileSync(process.execPath, [join(repo, 'scripts/package-agent.mjs'), '--no-tar', '--no-windows', '--quiet'], {
    cwd: repo,
    stdio: 'inherit',
  });
  const pkg = join(pkgRoot, findPkg());
  const dir = mkdtempSync(join(tmpdir(), 'bench-proc-'));
  const home = join(dir, 'home');
  const agentRoot = join(dir, 'root');
  const state = join(dir, 'state');
  mkdirSync(home);
  mkdirSync(join(agentRoot, 'etc', 'zerotwo'), { recursive: true });
  const requirements = join(agentRoot, 'etc', 'zerotwo', 'requirements.toml');
  writeFileSync(
    requirements,
    '[hooks]\nmanaged_dir = "/opt/bench/hooks"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n' +
      '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "cat >/dev/null"\n',
  );
  // The same managed layer with a shadow layer beside it (a shadow release, issue 27): one more trivial hook, observed.
  const shadowRoot = join(dir, 'root-shadow');
  mkdirSync(join(shadowRoot, 'etc', 'zerotwo', 'shadow'), { recursive: true });
  const shadowRequirements = join(shadowRoot, 'etc', 'zerotwo', 'requirements.toml');
  writeFileSync(shadowRequirements, readFileSync(requirements));
  writeFileSync(
    join(shadowRoot, 'etc', 'zerotwo', 'shadow', 'requirements.toml'),
    '[hooks]\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "cat >/dev/null"\n',
  );
  writeFileSync(
    join(shadowRoot, 'etc', 'zerotwo', 'shadow', 'shadow-release.json'),
    JSON.stringify({ releaseId: 'bench', version: 'v' }),
  );
  const event = JSON.stringify({ ...input, cwd: dir });
  const noMatch = JSON.stringify({ ...input, cwd: dir, tool_name: 'Read', tool_input: { file_path: '/etc/hosts' } });
  const core = ['dispatch', 'PreToolUse', '--requirements', requirements, '--home', home, '--project', dir];
  const agent = ['hooks', 'dispatch', 'PreToolUse', '--root', agentRoot, '--state-dir', state];
  agent.push('--home', home, '--project', dir);
  const runs =
    (n, shadowRuns = 0) =>
    (out) => {
      const r = JSON.parse(out);
      if (r.runs.length !== n || (r.shadow?.runs.length ?? 0) !== shadowRuns)
        throw new Error(`expected ${n} hook run(s) and ${shadowRuns} shadow run(s): ${out.slice(0, 200)}`);
    };
  const coreShadow = core.map((a) => (a === requirements ? shadowRequirements : a));
  const bin = (name) => join(repo, 'node_modules', '.bin', name);
  const node = process.execPath;
  const commands = [
    { name: 'node -e 0', cmd: node, args: ['-e', '0'] },
    {
      name: 'floor: node spawnSync sh -c (same hook)',
      cmd: node,
      args: ['-e', "require('child_process').spawnSync('/bin/sh', ['-c', 'cat >/dev/null'], { input: '{}' })"],
    },
    { name: 'zerotwo-hooks, npm bin', cmd: bin('zerotwo-hooks'), args: core, input: event, check: runs(1) },
    {
      name: 'zerotwo-hooks, npm bin, no hook matches',
      cmd: bin('zerotwo-hooks'),
      args: core,
      input: noMatch,
      check: runs(0),
    },
    {
      name: 'hookwarden-agent hooks, npm bin',
      cmd: bin('hookwarden-agent'),
      args: agent,
      input: event,
      check: runs(1),
    },
    {
      name: 'hookwarden-agent hooks, npm bin, no hook matches',
      cmd: bin('hookwarden-agent'),
      args: agent,
      input: noMatch,
      check: runs(0),
    },
    {
      name: 'zerotwo-hooks, single executable',
      cmd: join(pkg, 'bin', 'zerotwo-hooks'),
      args: core,
      input: event,
      check: runs(1),
    },
    {
      name: 'hookwarden-agent hooks, single executable',
      cmd: join(pkg, 'bin', 'hookwarden-agent'),
      args: agent,
      input: event,
      check: runs(1),
    },
    {
      name: 'zerotwo-hooks, single executable, no hook matches',
      cmd: join(pkg, 'bin', 'zerotwo-hooks'),
      args: core,
      input: noMatch,
      check: runs(0),
    },
    {
      name: 'zerotwo-hooks, packaged .cjs on node',
      cmd: node,
      args: [join(pkg, 'lib', 'zerotwo-hooks.cjs'), ...core],
      input: event,
      check: runs(1),
    },
    {
      name: 'zerotwo-hooks, npm bin, + 1 shadow hook',
      cmd: bin('zerotwo-hooks'),
      args: coreShadow,
      input: event,
      check: runs(1, 1),
    },
    {
      name: 'zerotwo-hooks, workspace dist/ (tsc output)',
      cmd: node,
      args: [join(repo, 'libs/hook-core/dist/cli/main.js'), ...core],
      input: event,
      check: runs(1),
    },
  ];
  const rows = timeProcesses(commands, { runs: RUNS });
  const [base, floor, zNpm, zNpmNone, aNpm, aNpmNone, zSea, aSea] = rows;
  printProcessTable(
    `per-event process (NODE_EXTRA_CA_CERTS unset; ${RUNS} runs each, interleaved; wall ms from fork to exit)`,
    rows,
    base,
  );
  const targets = [
    target('zerotwo-hooks dispatch, npm bin, 1 matching hook', zNpm, floor, 1.15),
    target('hookwarden-agent hooks dispatch, npm bin, 1 matching hook', aNpm, floor, 1.15),
    target('zerotwo-hooks dispatch, npm bin, no hook matches', zNpmNone, base, 1.3),
    target('hookwarden-agent hooks dispatch, npm bin, no hook matches', aNpmNone, base, 1.3),
    target('zerotwo-hooks single executable', zSea, { ...zNpm, name: 'the npm bin' }, 1.0),
    target('hookwarden-agent single executable', aSea, { ...aNpm, name: 'the npm bin' }, 1.0),
    target(
      'zerotwo-hooks dispatch, npm bin, 1 enforced + 1 shadow hook',
      rows.find((r) => r.name.endsWith('+ 1 shadow hook')),
      { ...zNpm, name: 'the same without the shadow layer' },
      1.1,
    ),
  ];
  return { runs: RUNS, rows, targets };
}
