// Benchmark: loading a 100-hook configuration (hooks.json, config.toml, requirements.toml) through hook-core.
// Run after `npx tsc -b tsconfig.build.json`: node bench/hook-config/run.mjs
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const hc = require('../../libs/hook-core/dist/index.js');

const N = 100;
const RUNS = 300;
const matcherFor = (e, i) =>
  ['Stop', 'UserPromptSubmit'].includes(e) ? undefined : ['Bash', '^Bash$', 'Edit|Write', 'mcp__.*', '*'][i % 5];

// A realistic 100-hook table spread over every event.
function hooksTable() {
  const table = {};
  for (let i = 0; i < N; i++) {
    const e = hc.HOOK_EVENTS[i % hc.HOOK_EVENTS.length];
    const group = {
      hooks: [
        { type: 'command', command: `python3 ~/.zerotwo/hooks/h${i}.py`, timeout: 30, statusMessage: `hook ${i}` },
      ],
    };
    const m = matcherFor(e, i);
    if (m !== undefined) group.matcher = m;
    (table[e] ??= []).push(group);
  }
  return table;
}

// Median and p95 wall time of a function in milliseconds, plus mean CPU time (less sensitive to a busy machine).
function measure(fn) {
  for (let i = 0; i < 30; i++) fn();
  const t = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    const s = process.hrtime.bigint();
    fn();
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  t.sort((a, b) => a - b);
  return {
    median: t[Math.floor(RUNS / 2)],
    p95: t[Math.floor(RUNS * 0.95)],
    cpu: (cpu.user + cpu.system) / 1000 / RUNS,
  };
}

const root = mkdtempSync(join(tmpdir(), 'bench-hook-config-'));
const table = hooksTable();
const jsonHome = join(root, 'json');
mkdirSync(jsonHome);
writeFileSync(join(jsonHome, 'hooks.json'), JSON.stringify({ hooks: table }, null, 2));
const tomlHome = join(root, 'toml');
mkdirSync(tomlHome);
const policy = { hooks: { managed_dir: '/opt/zerotwo/hooks', ...table } };
const tomlText = hc.renderPolicyToml(policy).replace(/^managed_dir = .*\n/m, '');
writeFileSync(join(tomlHome, 'config.toml'), tomlText);
const reqText = hc.renderPolicyToml(policy);
const base = { systemDir: join(root, 'none'), requirementsPath: null, env: {}, platform: 'linux' };

const rows = [
  ['discoverHooks, 100 hooks in hooks.json', () => hc.discoverHooks({ ...base, home: jsonHome })],
  ['discoverHooks, 100 hooks in config.toml', () => hc.discoverHooks({ ...base, home: tomlHome })],
  [
    'parsePolicyToml + lintPolicy, 100 managed hooks',
    () => {
      const r = hc.parsePolicyToml(reqText);
      if (r.ok) hc.lintPolicy(r.policy, undefined, { sourceText: reqText });
    },
  ],
];
const check = hc.discoverHooks({ ...base, home: jsonHome });
if (check.hooks.length !== N) throw new Error(`expected ${N} hooks, got ${check.hooks.length}`);
console.log(`hook-config bench (${RUNS} runs each, after warm-up)`);
for (const [name, fn] of rows) {
  const { median, p95, cpu } = measure(fn);
  console.log(
    `${name.padEnd(50)} median ${median.toFixed(2)} ms   p95 ${p95.toFixed(2)} ms   cpu ${cpu.toFixed(2)} ms`,
  );
}
