// Seeded fuzz (issue 10 §4): garbage and pathological files in the user, project and plugin layers never change the
// outcome of a managed deny. Bounded: a fixed number of cases from a fixed seed (override with HC_FUZZ_SEED/CASES).
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverHooks, dispatch, explain, type DiscoverOptions } from '../support/core';
import { runCli, type CliIo } from '@hookwarden/hook-core/cli';
import { emit, fx, tmp } from './support';

// Test-only knobs (the engine itself reads no environment here).
const SEED = Number(process.env['HC_FUZZ_SEED'] ?? 0x10a);
const CASES = Number(process.env['HC_FUZZ_CASES'] ?? 120);

/** mulberry32: a small seeded PRNG, so every failing case can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random helpers over one PRNG. */
function gen(r: () => number) {
  const int = (n: number): number => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number): boolean => r() < p;
  const str = (max: number, alphabet = 'abcXYZ019 _-|.*+?()[]{}^$\\"\'\n\t\u0000\u00e9\u4e2d\ud83d\ude00'): string => {
    const chars = [...alphabet];
    let s = '';
    for (let i = int(max); i > 0; i--) s += pick(chars);
    return s;
  };
  return { int, pick, chance, str };
}
type Gen = ReturnType<typeof gen>;

const DENY = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'managed-deny',
  },
};
const EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUSE',
  'Nope',
  '__proto__',
  'hooks',
];
const EVIL_MATCHERS = [
  '(a+)+$',
  '(',
  'Edit|*',
  '(?=Bash)',
  '.*',
  '^Bash$',
  'Bash',
  '',
  '*',
  'a'.repeat(5000),
  '(x*)*y',
  '\\',
];

/** Commands a fuzzed (possibly trusted-by-bypass) hook may run: only the fixtures, never generated text. */
function safeCommand(g: Gen): string {
  const outputs: unknown[] = [
    '',
    'plain text',
    {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'echo ok' },
      },
    },
    {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'user-deny',
      },
    },
    { continue: false, stopReason: 'stop' },
    { decision: 'approve' },
    '{"broken":',
    `${'['.repeat(500)}${']'.repeat(500)}`,
    { systemMessage: 'x'.repeat(10_000) },
  ];
  return g.pick([
    () => emit(0, g.pick(outputs)),
    () => emit(2, '', g.pick(['reason from stderr', ''])),
    () => emit(g.pick([1, 3, 127]), 'oops'),
    () => `${fx('flood.sh')} ${g.pick([10, 100_000, 1_200_000])}`,
    () => `${fx('secret-line.sh')} ${g.pick([10, 300_000])}`,
    () => emit(0, '', '', '0.1'),
  ])();
}

/** A random JSON value, sometimes deeply nested or huge. */
function value(g: Gen, depth = 0): unknown {
  if (depth > 6) return g.pick([null, 1, 's']);
  return g.pick<() => unknown>([
    () => null,
    () => g.pick([true, false]),
    () => g.pick([0, -1, 1.5, 2_147_484, 1e300, Number.MAX_SAFE_INTEGER, 600]),
    () => g.str(20),
    () => 'x'.repeat(g.pick([10, 70_000])),
    () => Array.from({ length: g.int(4) }, () => value(g, depth + 1)),
    () => Object.fromEntries(Array.from({ length: g.int(4) }, () => [g.str(6), value(g, depth + 1)])),
  ])();
}

/** A handler: mostly plausible, with hostile values in any field. */
function handler(g: Gen): unknown {
  if (g.chance(0.1)) return value(g);
  const h: Record<string, unknown> = { type: g.pick(['command', 'command', 'command', 'prompt', 'agent', 'shell', 1]) };
  if (g.chance(0.9)) h['command'] = g.chance(0.9) ? safeCommand(g) : value(g);
  if (g.chance(0.4)) h['timeout'] = g.pick([0, 1, 2, -1, 2_147_484, 1e300, '10', 1.5, 99_999_999_999, null]);
  if (g.chance(0.2)) h['async'] = g.pick([true, false, 'yes']);
  if (g.chance(0.2)) h['additionalContextLimit'] = g.pick([0, 10, -5, 'big']);
  if (g.chance(0.2)) h[g.str(5)] = value(g);
  return h;
}

/** A hooks.json document (as an object) with random events, groups and handlers. */
function hooksDoc(g: Gen): unknown {
  const hooks: Record<string, unknown> = {};
  for (let e = g.int(4); e > 0; e--) {
    const name = g.pick(EVENTS);
    hooks[name] = g.chance(0.1)
      ? value(g)
      : Array.from({ length: 1 + g.int(3) }, () =>
          g.chance(0.1)
            ? value(g)
            : {
                ...(g.chance(0.6) ? { matcher: g.chance(0.7) ? g.pick(EVIL_MATCHERS) : value(g) } : {}),
                hooks: g.chance(0.1) ? value(g) : Array.from({ length: 1 + g.int(3) }, () => handler(g)),
              },
        );
  }
  return g.chance(0.1) ? hooks : { description: g.str(10), hooks };
}

/** Serialized text of a hooks.json: valid, truncated, corrupted, deep, huge or binary. */
function hooksJsonText(g: Gen): string {
  const text = JSON.stringify(hooksDoc(g), null, g.pick([0, 2]));
  return g.pick<() => string>([
    () => text,
    () => text,
    () => text.slice(0, g.int(text.length)),
    () => `\ufeff${text}`,
    () => text.replace(/}$/, ',}'),
    () => `{"hooks":{"PreToolUse":${'['.repeat(6000)}${']'.repeat(6000)}}}`,
    () => `{"hooks":{"x":"${'\\'.repeat(2)}${'a'.repeat(200_000)}"}}`,
    () => Buffer.from(Array.from({ length: 2000 }, () => g.int(256))).toString('latin1'),
    () => `${' '.repeat(100_000)}{`,
  ])();
}

/** A config.toml text: inline hooks, trust state (also for the managed key), features, garbage lines. */
function configTomlText(g: Gen, managedKey: string, projectDir: string): string {
  const lines: string[] = [];
  if (g.chance(0.5)) lines.push(`[projects.${JSON.stringify(projectDir)}]`, 'trust_level = "trusted"');
  if (g.chance(0.3)) lines.push('[features]', `hooks = ${g.pick(['false', 'true', '"no"'])}`);
  if (g.chance(0.5))
    lines.push(`[hooks.state.${JSON.stringify(managedKey)}]`, 'enabled = false', 'trusted_hash = "sha256:00"');
  for (let i = g.int(3); i > 0; i--) {
    const ev = g.pick(EVENTS.filter((e) => /^[A-Za-z]+$/.test(e)));
    lines.push(`[[hooks.${ev}]]`);
    if (g.chance(0.5)) lines.push(`matcher = ${JSON.stringify(g.pick(EVIL_MATCHERS))}`);
    lines.push(`[[hooks.${ev}.hooks]]`, `type = ${JSON.stringify(g.pick(['command', 'prompt', 'bogus']))}`);
    lines.push(`command = ${JSON.stringify(safeCommand(g))}`);
    if (g.chance(0.4)) lines.push(`timeout = ${g.pick(['0', '2147484', '99999999999999999999', '1.5', '"x"', 'inf'])}`);
  }
  if (g.chance(0.2)) lines.push(`x = ${'['.repeat(3000)}1${']'.repeat(3000)}`);
  if (g.chance(0.2)) lines.push(' '.repeat(g.pick([5000, 60_000])));
  if (g.chance(0.2)) lines.push(`[${' '.repeat(20_000)}`);
  if (g.chance(0.2)) lines.push(g.str(200));
  return lines.join('\n') + '\n';
}

/** Writes `text` at `path`, or replaces the file by something pathological (directory, FIFO, symlink loop, huge). */
function place(g: Gen, path: string, text: string): void {
  const kind = g.int(14);
  if (kind === 0) mkdirSync(path, { recursive: true });
  else if (kind === 1) execFileSync('mkfifo', [path]);
  else if (kind === 2) {
    symlinkSync(`${path}.loop`, path);
    symlinkSync(path, `${path}.loop`);
  } else if (kind === 3) writeFileSync(path, Buffer.alloc(5 * 1024 * 1024, 0x7b));
  else writeFileSync(path, text);
}

/** One fuzz case: fixed managed deny + random non-managed layers; returns the options and a description. */
function fuzzCase(seed: number): { opts: DiscoverOptions; loc: string[]; bypass: boolean; tool: string } {
  const g = gen(rng(seed));
  const root = tmp('hc-fuzz-');
  const home = join(root, 'home');
  const sys = join(root, 'sys');
  const proj = join(root, 'proj');
  const plugin = join(root, 'plugin');
  for (const d of [
    home,
    sys,
    join(proj, '.git'),
    join(proj, '.zerotwo'),
    join(plugin, 'hooks'),
    join(plugin, '.codex-plugin'),
  ])
    mkdirSync(d, { recursive: true });
  const req = join(sys, 'requirements.toml');
  writeFileSync(
    req,
    [
      '[features]',
      'hooks = true',
      '[hooks]',
      `managed_dir = ${JSON.stringify(sys)}`,
      '[[hooks.PreToolUse]]',
      'matcher = "^Bash$"',
      '[[hooks.PreToolUse.hooks]]',
      'type = "command"',
      `command = ${JSON.stringify(emit(0, DENY))}`,
      '',
    ].join('\n'),
  );
  const managedKey = `${req}:pre_tool_use:0:0`;
  if (g.chance(0.8)) place(g, join(home, 'hooks.json'), hooksJsonText(g));
  if (g.chance(0.8)) place(g, join(home, 'config.toml'), configTomlText(g, managedKey, proj));
  if (g.chance(0.6)) place(g, join(proj, '.zerotwo', 'hooks.json'), hooksJsonText(g));
  if (g.chance(0.4)) place(g, join(proj, '.zerotwo', 'config.toml'), configTomlText(g, managedKey, proj));
  if (g.chance(0.6)) place(g, join(plugin, 'hooks', 'hooks.json'), hooksJsonText(g));
  if (g.chance(0.4))
    place(
      g,
      join(plugin, '.codex-plugin', 'plugin.json'),
      JSON.stringify({
        name: g.pick(['p', '', '../../x', g.str(8)]),
        hooks: g.pick<unknown>([
          './hooks/hooks.json',
          '../../../etc/passwd',
          ['./a.json', 7],
          hooksDoc(g),
          [hooksDoc(g)],
          value(g),
        ]),
      }),
    );
  const bypass = g.chance(0.35);
  const tool = g.pick(['Bash', 'exec_command', 'shell', 'unified_exec', 'local_shell']);
  const opts: DiscoverOptions = {
    home,
    systemDir: sys,
    projectDir: proj,
    plugins: [plugin],
    env: {},
    bypassTrust: bypass,
  };
  const loc = ['--home', home, '--system-dir', sys, '--project', proj, '--plugin', plugin];
  if (bypass) loc.push('--dangerously-bypass-hook-trust');
  return { opts, loc, bypass, tool };
}

describe(`engine fuzz (seed ${SEED}, ${CASES} cases)`, () => {
  it('hostile user, project and plugin layers never change the managed deny', { timeout: 120_000 }, async () => {
    for (let n = 0; n < CASES; n++) {
      const seed = SEED * 1000 + n;
      const c = fuzzCase(seed);
      const input = {
        session_id: `fuzz-${n}`,
        tool_name: c.tool,
        tool_input: { command: 'rm -rf /', cmd: 'rm -rf /' },
      };
      const where = `seed ${seed}`;
      const d = discoverHooks(c.opts);
      const managed = d.hooks.filter((h) => h.managed);
      expect(
        managed.map((h) => [h.runnable, h.trust]),
        where,
      ).toEqual([[true, 'managed']]);
      const ex = explain(d, 'PreToolUse', { tool: c.tool }, { bypassTrust: c.bypass });
      expect(ex.hooks.find((h) => h.key === managed[0]!.key)?.wouldRun, where).toBe(true);
      let out: string | undefined;
      if (n % 10 === 0) {
        // Every tenth case goes through the CLI as the agent runs it.
        let text = '';
        const io: CliIo = {
          readStdin: () => Promise.resolve(JSON.stringify(input)),
          out: (t) => (text += t),
          err: () => {},
        };
        expect(await runCli(['dispatch', 'PreToolUse', ...c.loc], io), where).toBe(0);
        out = text;
      }
      const res =
        out !== undefined
          ? JSON.parse(out)
          : await dispatch('PreToolUse', input, { discovery: d, bypassTrust: c.bypass });
      expect(res.outcome.decision, where).toBe('deny');
      expect(res.outcome.reason, where).toBe('managed-deny');
      expect(res.runs[0], where).toMatchObject({ status: 'ran', hook: { managed: true }, decision: 'deny' });
    }
  });
});
