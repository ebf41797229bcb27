// Issue 20 §5: the engine never drops a managed hook for a value with a safe reading (an over-limit timeout is clamped,
// its deny holds), and a managed hook it cannot read is listed with its error and recorded as failed, never silent.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { managedLayerRefusal, readManagedRequirements, runRecordSchema } from '@hookwarden/hook-core';
import { tmp } from './support';

const BIN = resolve(__dirname, '../../bin/zerotwo-hooks.cjs');

/** Runs the built `zerotwo-hooks` as a child process. */
function zerotwo(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, out, errOut) =>
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out, err: errOut }),
    );
    child.stdin?.end(stdin);
  });
}

/** A machine: system dir with requirements.toml, a managed dir with a real deny script, an empty user home. */
function machine(requirements: (dir: string) => string) {
  const root = tmp('hc-managed-');
  const sys = join(root, 'etc');
  const dir = join(root, 'managed');
  const home = join(root, 'home');
  for (const d of [sys, dir, home]) mkdirSync(d, { recursive: true });
  const deny = join(dir, 'deny.sh');
  writeFileSync(
    deny,
    `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by managed policy"}}'\n`,
  );
  chmodSync(deny, 0o755);
  writeFileSync(join(sys, 'requirements.toml'), requirements(dir));
  return { root, sys, dir, home, loc: ['--home', home, '--system-dir', sys] };
}

const bash = JSON.stringify({ session_id: 's1', cwd: '/', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });

// One managed PreToolUse group matching Bash with the given handler lines.
const preToolUse = (dir: string, ...handlers: string[][]): string =>
  [
    '[hooks]',
    `managed_dir = ${JSON.stringify(dir)}`,
    '[[hooks.PreToolUse]]',
    'matcher = "^Bash$"',
    ...handlers.flatMap((h) => ['[[hooks.PreToolUse.hooks]]', 'type = "command"', ...h]),
    '',
  ].join('\n');

interface Dispatched {
  outcome: { decision?: string; failures: number };
  runs: Array<Record<string, unknown> & { hook: { key: string; timeoutSec: number }; status: string }>;
  warnings: string[];
}

describe('an out-of-range managed timeout is clamped, not dropped', () => {
  it('timeout = 2147484 runs with the 86400 s limit and a warning: zerotwo-hooks dispatch still denies', async () => {
    const m = machine((dir) => preToolUse(dir, [`command = "${dir}/deny.sh"`, 'timeout = 2147484']));
    const run = await zerotwo(['dispatch', 'PreToolUse', ...m.loc], bash);
    expect(run.code).toBe(0);
    const res = JSON.parse(run.out) as Dispatched;
    expect(res.outcome.decision).toBe('deny');
    expect(res.runs).toHaveLength(1);
    expect(res.runs[0]).toMatchObject({ status: 'ran', decision: 'deny', hook: { timeoutSec: 86_400 } });
    expect(res.warnings.join('\n')).toMatch(/clamping hook timeout 2147484s to the 86400s limit/);
    expect(res.warnings.join('\n')).not.toMatch(/failing closed/);
    const list = await zerotwo(['list', '--json', ...m.loc]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toMatchObject({ hooks: [{ timeoutSec: 86_400, runnable: true }] });
  });

  it('a SessionEnd timeout over the limit keeps the 3 s cap', () => {
    const text =
      '[[hooks.SessionEnd]]\n[[hooks.SessionEnd.hooks]]\ntype = "command"\ncommand = "/x/end.sh"\ntimeout = 2147484\n';
    const r = readManagedRequirements(text, 'requirements.toml');
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toContain('session_end_timeout_clamped');
    expect(managedLayerRefusal(text)).toBeUndefined();
  });
});

describe('a managed hook that cannot be read is listed and recorded as failed, the others still run', () => {
  const broken = (dir: string): string =>
    [
      preToolUse(
        dir,
        [`command = "${dir}/deny.sh"`],
        [`command = "${dir}/deny.sh second"`, 'timeout = "30"'],
        [`command = "${dir}/deny.sh third"`, 'timeot = 30'],
      ),
      '[[hooks.PreToolUse]]',
      'matcher = "(unclosed"',
      '[[hooks.PreToolUse.hooks]]',
      'type = "command"',
      `command = "${dir}/deny.sh fourth"`,
      '',
    ].join('\n');

  it('dispatch: the readable deny holds; each unreadable hook is a failed record with its reason, in the spool', async () => {
    const m = machine(broken);
    const spool = join(m.root, 'spool');
    const run = await zerotwo(['dispatch', 'PreToolUse', ...m.loc, '--spool', spool], bash);
    expect(run.code).toBe(0);
    const res = JSON.parse(run.out) as Dispatched;
    expect(res.outcome.decision).toBe('deny');
    expect(res.outcome.failures).toBe(3);
    const byKey = Object.fromEntries(res.runs.map((r) => [r.hook.key.split(':').slice(-2).join(':'), r]));
    expect(byKey['0:0']).toMatchObject({ status: 'ran', decision: 'deny' });
    expect(byKey['0:1']).toMatchObject({
      status: 'failed',
      skipReason: 'unreadable',
      effect: 'failed',
      error: expect.stringMatching(/expected number.*\$\.hooks\.PreToolUse\[0\]\.hooks\[1\]\.timeout/),
    });
    expect(byKey['0:2']).toMatchObject({ status: 'failed', error: expect.stringContaining('timeot') });
    expect(byKey['1:0']).toMatchObject({ status: 'failed', error: expect.stringContaining('invalid matcher') });
    expect(res.warnings.filter((w) => w.includes('cannot be read and did not run'))).toHaveLength(3);
    // The records reach the spool and pass the record schema the API validates uploads with.
    const lines = readdirSync(spool)
      .filter((f) => f.startsWith('seg-'))
      .flatMap((f) => readFileSync(join(spool, f), 'utf8').trim().split('\n'));
    const records = lines.map((l) => runRecordSchema.parse(JSON.parse(l)));
    expect(records.filter((r) => r.status === 'failed' && r.skipReason === 'unreadable')).toHaveLength(3);
  });

  it('an unreadable hook is recorded only where it could have run: a readable matcher still filters', async () => {
    const m = machine(broken);
    const read = JSON.stringify({ session_id: 's1', cwd: '/', tool_name: 'Read', tool_input: {} });
    const res = JSON.parse((await zerotwo(['dispatch', 'PreToolUse', ...m.loc], read)).out) as Dispatched;
    // Only the group whose matcher cannot be read: it could have matched anything.
    expect(res.runs.map((r) => [r.hook.key.split(':').slice(-2).join(':'), r.status])).toEqual([['1:0', 'failed']]);
    expect(res.outcome.decision).toBeUndefined();
  });

  it('list and explain show each unreadable hook with its error; list exits 2', async () => {
    const m = machine(broken);
    const list = await zerotwo(['list', '--json', ...m.loc]);
    expect(list.code).toBe(2);
    const hooks = (JSON.parse(list.out) as { hooks: Array<{ key: string; error?: string; runnable: boolean }> }).hooks;
    expect(hooks.map((h) => [h.key.split(':').slice(-2).join(':'), h.runnable, h.error !== undefined])).toEqual([
      ['0:0', true, false],
      ['0:1', false, true],
      ['0:2', false, true],
      ['1:0', false, true],
    ]);
    const human = await zerotwo(['list', ...m.loc]);
    expect(human.out).toMatch(/managed, unreadable .*pre_tool_use:1:0/);
    expect(human.out).toMatch(/error: invalid matcher "\(unclosed"/);
    const ex = await zerotwo(['explain', 'PreToolUse', '--tool', 'Bash', '--json', ...m.loc]);
    const entries = (JSON.parse(ex.out) as { hooks: Array<{ wouldRun: boolean; reason: string; error: string }> })
      .hooks;
    expect(entries[0]).toMatchObject({ wouldRun: true, error: null });
    expect(entries[3]).toMatchObject({
      wouldRun: false,
      reason: expect.stringMatching(/^unreadable: invalid matcher/),
    });
  });

  it('managedLayerRefusal names the first unreadable hook; whole-document problems still fail the layer closed', () => {
    const text = broken('/opt/hooks');
    expect(managedLayerRefusal(text)).toMatch(
      /^requirements\.toml: 3 managed hooks cannot be read by this engine: PreToolUse\[0\]\.hooks\[1\]: /,
    );
    const unknownEvent = readManagedRequirements('[hooks]\nenabled = false\n', 'r.toml');
    expect(unknownEvent).toMatchObject({ ok: false, failure: expect.stringContaining('unknown hook event `enabled`') });
    expect(readManagedRequirements('allow_managed_hooks_only = "yes"\n', 'r.toml').ok).toBe(false);
    expect(readManagedRequirements('x = [\n', 'r.toml').ok).toBe(false);
    expect(managedLayerRefusal(preToolUse('/opt/hooks', ['command = "/opt/hooks/a.sh"']))).toBeUndefined();
  });
});
