// Issue 10 §4: nothing in a user's, project's or plugin's files (or a hook's output) can silence a managed hook.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, runCli, type CliIo } from '@hookwarden/hook-core/cli';
import { emit, fx, sq, tmp } from './support';

/** Run the CLI in-process with the given stdin; capture output and exit code. */
async function cli(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { readStdin: () => Promise.resolve(stdin), out: (t) => (out += t), err: (t) => (err += t) };
  const code = await runCli(args, io);
  return { code, out, err };
}

const DENY = {
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'managed' },
};

/** Layers: a managed requirements.toml with one handler, a user home, a trusted project and a plugin root. */
function layers(managed: { event?: string; matcher?: string; command: string; timeout?: number }) {
  const root = tmp('hc-hostile-');
  const home = join(root, 'home');
  const sys = join(root, 'sys');
  const proj = join(root, 'proj');
  const plugin = join(root, 'plugin');
  for (const d of [home, sys, join(proj, '.git'), join(proj, '.zerotwo'), join(plugin, 'hooks')])
    mkdirSync(d, { recursive: true });
  const event = managed.event ?? 'PreToolUse';
  writeFileSync(
    join(sys, 'requirements.toml'),
    [
      '[features]',
      'hooks = true',
      '[hooks]',
      `managed_dir = ${JSON.stringify(sys)}`,
      `[[hooks.${event}]]`,
      ...(managed.matcher !== undefined ? [`matcher = ${JSON.stringify(managed.matcher)}`] : []),
      `[[hooks.${event}.hooks]]`,
      'type = "command"',
      `command = ${JSON.stringify(managed.command)}`,
      ...(managed.timeout !== undefined ? [`timeout = ${managed.timeout}`] : []),
      '',
    ].join('\n'),
  );
  writeFileSync(join(home, 'config.toml'), `[projects.${JSON.stringify(proj)}]\ntrust_level = "trusted"\n`);
  const loc = ['--home', home, '--system-dir', sys, '--project', proj, '--plugin', plugin];
  return { root, home, sys, proj, plugin, loc };
}

const bash = (tool = 'Bash'): string =>
  JSON.stringify({ session_id: 's1', tool_name: tool, tool_input: { command: 'rm -rf /' } });

/** A hooks.json whose one handler carries a value nested `depth` levels deep. */
function deepHooksJson(depth: number): string {
  const deep = '['.repeat(depth) + '1' + ']'.repeat(depth);
  const doc = { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true', extra: 'X' }] }] } };
  return JSON.stringify(doc, null, 2).replace('"X"', deep);
}

describe('a hooks.json nested ~6,000 levels deep', () => {
  it.each(['user', 'project', 'plugin'])(
    'in the %s layer is dropped with a located warning; list, explain and dispatch still work',
    async (where) => {
      const l = layers({ matcher: '^Bash$', command: emit(0, DENY) });
      const file =
        where === 'user'
          ? join(l.home, 'hooks.json')
          : where === 'project'
            ? join(l.proj, '.zerotwo', 'hooks.json')
            : join(l.plugin, 'hooks', 'hooks.json');
      writeFileSync(file, deepHooksJson(6000));

      const list = await cli(['list', '--json', ...l.loc]);
      expect(list.err).toBe('');
      const d = JSON.parse(list.out) as { hooks: { managed: boolean }[]; diagnostics: Record<string, unknown>[] };
      expect(d.hooks.map((h) => h.managed)).toEqual([true]);
      expect(d.diagnostics).toContainEqual(
        expect.objectContaining({
          code: 'json_syntax',
          file,
          line: 9,
          column: 116,
          message: expect.stringMatching(/nested deeper/),
        }),
      );

      const ex = await cli(['explain', 'PreToolUse', '--tool', 'Bash', '--json', ...l.loc]);
      expect(ex.code).toBe(EXIT.OK);
      expect(JSON.parse(ex.out).hooks).toEqual([expect.objectContaining({ wouldRun: true })]);

      const run = await cli(['dispatch', 'PreToolUse', ...l.loc], bash());
      expect(run.code).toBe(EXIT.OK);
      const res = JSON.parse(run.out);
      expect(res.outcome.decision).toBe('deny');
      expect(res.warnings.join('\n')).toMatch(/nested deeper than 100 levels/);
    },
  );

  it('a hook printing deeply nested JSON fails alone; the managed deny stands', async () => {
    const l = layers({ matcher: '^Bash$', command: emit(0, DENY) });
    const deep = '{"a":'.repeat(20000) + '1' + '}'.repeat(20000);
    writeFileSync(join(l.root, 'deep.json'), deep);
    writeFileSync(
      join(l.home, 'hooks.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `cat ${sq(join(l.root, 'deep.json'))}` }] }] },
      }),
    );
    const run = await cli(['dispatch', 'PreToolUse', ...l.loc, '--dangerously-bypass-hook-trust'], bash());
    const res = JSON.parse(run.out);
    expect(res.outcome.decision).toBe('deny');
    expect(res.runs[1]).toMatchObject({ status: 'failed', error: expect.stringMatching(/nested deeper/) });
  });
});

describe('timeouts beyond what Node timers can wait', () => {
  it('timeout = 2147484 s does not overflow the timer: the hook runs to its deny', async () => {
    const l = layers({ matcher: '^Bash$', command: emit(0, '') });
    writeFileSync(
      join(l.home, 'hooks.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ hooks: [{ type: 'command', command: emit(0, DENY, '', '0.5'), timeout: 2_147_484 }] }],
        },
      }),
    );
    const run = await cli(['dispatch', 'PreToolUse', ...l.loc, '--dangerously-bypass-hook-trust'], bash());
    const res = JSON.parse(run.out);
    expect(res.runs[1]).toMatchObject({ status: 'ran', timedOut: false, hook: { timeoutSec: 2_147_484 } });
    expect(res.outcome.decision).toBe('deny');
  });
});

describe('huge hook output', () => {
  it('a 1 MB single line is redacted and bounded without stalling dispatch; the deny stands', async () => {
    const l = layers({ matcher: '^Bash$', command: emit(0, DENY) });
    writeFileSync(
      join(l.home, 'hooks.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `${fx('secret-line.sh')} 1048576` }] }] },
      }),
    );
    const run = await cli(
      ['dispatch', 'PreToolUse', ...l.loc, '--dangerously-bypass-hook-trust', '--capture', 'excerpts'],
      bash(),
    );
    const res = JSON.parse(run.out);
    expect(res.outcome.decision).toBe('deny');
    const out = res.runs[1].stdout;
    expect(out.bytes).toBe(1024 * 1024); // capped capture
    expect(out.truncated).toBe(true);
    expect(out.excerpt).toMatch(/^\[REDACTED\] a+…\[\d+ bytes omitted\]$/);
    expect(out.excerpt).not.toContain('hunter2');
    expect(Buffer.byteLength(out.excerpt.replace(/…\[\d+ bytes omitted\]$/, ''))).toBeLessThanOrEqual(2048);
  });
});

describe('matchers run in linear time', () => {
  it('(a+)+$ against a crafted tool name does not stall dispatch (user layer, untrusted)', async () => {
    const l = layers({ matcher: '*', command: emit(0, DENY) });
    writeFileSync(
      join(l.home, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: '(a+)+$', hooks: [{ type: 'command', command: 'true' }] }] } }),
    );
    const tool = `${'a'.repeat(5000)}!`;
    const res = JSON.parse((await cli(['dispatch', 'PreToolUse', ...l.loc], bash(tool))).out);
    expect(res.outcome.decision).toBe('deny');
    const ex = JSON.parse((await cli(['explain', 'PreToolUse', '--tool', tool, '--json', ...l.loc])).out);
    expect(ex.hooks.map((h: { wouldRun: boolean }) => h.wouldRun)).toEqual([true, false]);
  });
});

describe('--temp-dir that cannot be written', () => {
  it.each([
    ['under /proc', '/proc/hc-no-such-dir/tmp'],
    ['under a regular file', 'FILE/tmp'],
  ])('%s: spilling fails cleanly (preview without file, warning) and the dispatch completes', async (_n, dir) => {
    const l = layers({ event: 'SessionStart', command: `${fx('big-context.sh')} 40000` });
    writeFileSync(join(l.root, 'FILE'), 'x');
    const tempDir = dir.replace('FILE', join(l.root, 'FILE'));
    const run = await cli(
      ['dispatch', 'SessionStart', ...l.loc, '--temp-dir', tempDir],
      JSON.stringify({ session_id: 's1', source: 'startup' }),
    );
    expect(run.code).toBe(EXIT.OK);
    const res = JSON.parse(run.out);
    expect(res.outcome.additionalContext[0]).toMatch(/^Warning: truncated output/);
    expect(res.outcome.additionalContext[0]).not.toContain('Full hook output saved to');
    expect(res.warnings.join('\n')).toMatch(/could not save spilled output/);
  });
});
