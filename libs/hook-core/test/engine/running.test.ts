// Conformance: concurrency, deterministic order, timeouts, trust/type skips, plugins, spilling through dispatch.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatch, explain, MemorySink } from '../support/core';
import { bashInput, discovery, emit, fx, hook, tmp } from './support';

describe('running', () => {
  it('launches matching hooks concurrently: each of 5 waits until all 5 have started', async () => {
    // A barrier, not a stopwatch: hooks run one after another would never see 5 start markers and time out.
    const dir = tmp();
    const barrier = (i: number) =>
      `touch ${dir}/start-${i}; while [ "$(ls ${dir} | grep -c '^start-')" -lt 5 ]; do sleep 0.05; done`;
    const d = discovery(Array.from({ length: 5 }, (_, i) => hook('PreToolUse', barrier(i), { timeoutSec: 20 })));
    const r = await dispatch('PreToolUse', bashInput(), { discovery: d });
    expect(r.runs.map((x) => x.status)).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
  });

  it('aggregates in configured order when hooks finish in reverse order', async () => {
    const ctx = (t: string) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: t } });
    const d = discovery([
      hook('PreToolUse', emit(0, ctx('a'), '', '0.6')),
      hook('PreToolUse', emit(0, ctx('b'), '', '0.3')),
      hook('PreToolUse', emit(0, ctx('c'))),
    ]);
    const r = await dispatch('PreToolUse', bashInput(), { discovery: d });
    expect(r.outcome.additionalContext).toEqual(['a', 'b', 'c']);
    expect(r.runs.map((x) => x.hook.key)).toEqual(d.hooks.map((h) => h.key));
  });

  it('a timed-out hook is killed with its process group, fails, and does not block', async () => {
    const pidFile = join(tmp(), 'pid');
    const d = discovery([
      hook('PreToolUse', `${fx('spawn-grandchild.sh')} ${pidFile}`, { timeoutSec: 1 }),
      hook('PreToolUse', emit(0)),
    ]);
    const r = await dispatch('PreToolUse', bashInput(), { discovery: d });
    expect(r.runs[0]).toMatchObject({ status: 'timed_out', timedOut: true, error: 'hook timed out after 1s' });
    expect(r.runs[1]!.status).toBe('ran');
    expect(r.outcome.decision).toBeUndefined();
    const gc = Number(readFileSync(pidFile, 'utf8'));
    let state = '';
    try {
      state = readFileSync(`/proc/${gc}/stat`, 'utf8');
    } catch {
      state = 'gone';
    }
    expect(state === 'gone' || / [ZX] /.test(state)).toBe(true);
  });

  it('only managed and trusted hooks run; every skip has a reason; bypass runs enabled ones', async () => {
    const d = discovery([
      hook('PreToolUse', emit(0) + ' # 1', { trust: 'trusted', managed: false, layer: 'user' }),
      hook('PreToolUse', emit(0) + ' # 2', { trust: 'untrusted', managed: false, layer: 'project' }),
      hook('PreToolUse', emit(0) + ' # 3', { trust: 'modified', managed: false, layer: 'user' }),
      hook('PreToolUse', emit(0) + ' # 4', { trust: 'disabled', managed: false, layer: 'user' }),
      hook('PreToolUse', emit(0) + ' # 5', { unsupported: 'async hooks are not supported' }),
      hook('PreToolUse', '', { handler: { type: 'prompt' } }),
      hook('PreToolUse', emit(0) + ' # 6', { matcher: 'Write' }),
    ]);
    const r = await dispatch('PreToolUse', bashInput(), { discovery: d });
    expect(r.runs.map((x) => [x.status, x.skipReason])).toEqual([
      ['ran', null],
      ['skipped', 'untrusted'],
      ['skipped', 'modified'],
      ['skipped', 'disabled'],
      ['skipped', 'unsupported: async hooks are not supported'],
      ['skipped', 'unsupported: prompt handlers are not run'],
    ]);
    const b = await dispatch('PreToolUse', bashInput(), { discovery: d, bypassTrust: true });
    expect(b.runs.filter((x) => x.status === 'ran')).toHaveLength(3);
    expect(b.runs[3]!.skipReason).toBe('disabled');
    const e = explain(d, 'PreToolUse', { tool: 'Bash' });
    expect(e.hooks.map((h) => h.reason)).toEqual([
      null,
      'untrusted',
      'modified',
      'disabled',
      'unsupported: async hooks are not supported',
      'unsupported: prompt handlers are not run',
      'matcher_not_matched',
    ]);
    expect(explain(d, 'PreToolUse', { tool: 'apply_patch' }).hooks[6]!.wouldRun).toBe(true);
  });

  it('hooks disabled by the feature switch: nothing runs, each hook is recorded as skipped', async () => {
    const d = discovery([hook('Stop', emit(0))], { hooksEnabled: false, featureReason: '[features] hooks = false' });
    const r = await dispatch('Stop', {}, { discovery: d });
    expect(r.runs[0]).toMatchObject({ status: 'skipped', skipReason: 'hooks_disabled: [features] hooks = false' });
  });

  it('a handler runs at most once per event: an identical handler repeated in one file runs once', async () => {
    const a = hook('PreToolUse', emit(0), { matcher: 'Bash' });
    const b = hook('PreToolUse', emit(0), { matcher: '^Bash$' });
    const other = hook('PreToolUse', emit(0), {
      sourceFile: '/home/u/.zerotwo/hooks.json',
      trust: 'trusted',
      managed: false,
      layer: 'user',
    });
    const r = await dispatch('PreToolUse', bashInput(), { discovery: discovery([a, b, other]) });
    expect(r.runs.map((x) => x.status)).toEqual(['ran', 'skipped', 'ran']);
    expect(r.runs[1]!.skipReason).toBe(`duplicate: same handler as ${a.key}`);
  });

  it('plugin hooks get PLUGIN_ROOT/PLUGIN_DATA (+ CLAUDE_ aliases) and ${PLUGIN_ROOT} substitution', async () => {
    const root = tmp('hc-plugin-');
    const plugin = { name: 'p', root, dataDir: join(root, 'data') };
    const d = discovery([
      hook(
        'SessionStart',
        `'\${CLAUDE_PLUGIN_ROOT}'/../$(basename ${fx('print-env.sh')}) 2>/dev/null || ${fx('print-env.sh')}`,
        {
          plugin,
          layer: 'plugin',
          managed: false,
          trust: 'trusted',
        },
      ),
    ]);
    const r = await dispatch('SessionStart', { session_id: 's', cwd: root, source: 'startup' }, { discovery: d });
    const ctx = r.outcome.additionalContext[0]!;
    expect(ctx).toContain(`PLUGIN_ROOT=${root}\n`);
    expect(ctx).toContain(`CLAUDE_PLUGIN_DATA=${plugin.dataDir}\n`);
    expect(ctx).toContain(`PWD=${root}`);
    expect(explain(d, 'SessionStart', { source: 'startup' }).hooks[0]!.command).toContain(`'${root}'/../`);
  });

  it('spills oversized context per handler limit; 0 = no limit; records name the spill file', async () => {
    const tempDir = tmp('hc-spilltmp-');
    const d = discovery([
      hook('SessionStart', `${fx('big-context.sh')} 40000`),
      hook('SessionStart', `${fx('big-context.sh')} 40000 json`, {
        handler: { type: 'command', command: `${fx('big-context.sh')} 40000 json`, additionalContextLimit: 1000 },
      }),
      hook('SessionStart', `${fx('big-context.sh')} 40000`, {
        handler: { type: 'command', command: `${fx('big-context.sh')} 40000 `, additionalContextLimit: 0 },
      }),
    ]);
    const sink = new MemorySink();
    const r = await dispatch(
      'SessionStart',
      { session_id: 'sess/../x', cwd: tempDir, source: 'startup' },
      { discovery: d, tempDir, sink },
    );
    const [a, b, c] = r.outcome.additionalContext;
    expect(a!.startsWith('Warning: truncated output (original token count: 10000)')).toBe(true);
    expect(a!.length).toBeLessThan(10_200);
    expect(b!.length).toBeLessThan(4_200);
    expect(c!.length).toBe(40_000); // no limit: the full text, no spill
    expect(r.runs[0]!.spillPath).toMatch(new RegExp(`^${tempDir}/hook_outputs/sess_.._x/[0-9a-f-]{36}\\.txt$`));
    expect(existsSync(r.runs[0]!.spillPath!)).toBe(true);
    expect(statSync(r.runs[0]!.spillPath!).mode & 0o777).toBe(0o600);
    expect(r.runs[2]!.spillPath).toBeNull();
    expect(sink.records).toHaveLength(3);
  });

  it('additionalContextLimit on an event without context is noted', async () => {
    const d = discovery([
      hook('Stop', emit(0), { handler: { type: 'command', command: emit(0), additionalContextLimit: 10 } }),
    ]);
    const r = await dispatch('Stop', {}, { discovery: d });
    expect(r.runs[0]!.status).toBe('ran');
    expect(r.runs[0]!.notes).toEqual(['additionalContextLimit is ignored: Stop cannot produce additional context']);
    expect(r.warnings.some((w) => w.includes('additionalContextLimit is ignored'))).toBe(true);
  });
});

describe('dispatch with its own discovery', () => {
  it('discovers from discoverOptions when no discovery is given (cwd from the input)', async () => {
    const root = tmp('hc-disc-');
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(
      join(home, 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: emit(2, '', 'continue please') }] }] } }),
    );
    const r = await dispatch(
      'Stop',
      { cwd: root, session_id: 's' },
      {
        discoverOptions: { home, systemDir: join(root, 'sys'), requirementsPath: join(root, 'sys', 'req.toml') },
        bypassTrust: true,
      },
    );
    expect(r.outcome.reasons).toEqual(['continue please']);
    expect(r.runs[0]!.hook.trust).toBe('untrusted');
  });
});
