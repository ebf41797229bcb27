// Complete run records: the tool call the hook saw (redacted, bounded, digested by capture mode), the decision's
// reason and feedback, and skipped records for hooks suppressed by policy or trust.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverHooks, dispatch, MemorySink, sha256Hex } from '../support/core';
import { discovery, emit, hook } from './support';

const input = (command: string): Record<string, unknown> => ({
  session_id: 's',
  transcript_path: null,
  cwd: tmpdir(),
  hook_event_name: 'PreToolUse',
  model: 'm',
  turn_id: 't',
  tool_name: 'Bash',
  tool_use_id: 'u',
  tool_input: { command },
});
const deny = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'no rm token=abc123secret',
  },
  systemMessage: 'blocked by policy',
};

describe('run records: the tool call and the decision', () => {
  it('excerpts: tool name, redacted bounded input and command, reason and feedback with their digests', async () => {
    const sink = new MemorySink();
    const cmd = `rm -rf / --password=hunter2 ${'x'.repeat(5000)}`;
    await dispatch('PreToolUse', input(cmd), {
      discovery: discovery([hook('PreToolUse', emit(0, deny), { matcher: 'Bash' })]),
      sink,
      capture: { capture: 'excerpts', maxExcerptBytes: 256 },
    });
    const [r] = sink.records;
    expect(r!.decision).toBe('deny');
    expect(r!.toolCall!.name).toBe('Bash');
    expect(r!.toolCall!.command!.startsWith('rm -rf / --[REDACTED]')).toBe(true);
    expect(r!.toolCall!.command!).toMatch(/bytes omitted\]$/);
    expect(r!.toolCall!.commandSha256).toBe(sha256Hex(cmd));
    expect(r!.toolCall!.input!.includes('hunter2')).toBe(false);
    expect(r!.reason).toBe('no rm [REDACTED]');
    expect(r!.reasonSha256).toBe(sha256Hex('no rm token=abc123secret'));
    expect(r!.feedback).toBe('blocked by policy');
    expect(r!.feedbackSha256).toBe(sha256Hex('blocked by policy'));
  });

  it('digests: only sha256 of the input, command, reason and feedback; none: no tool call', async () => {
    const sink = new MemorySink();
    await dispatch('PreToolUse', input('ls'), {
      discovery: discovery([hook('PreToolUse', emit(0, deny), { matcher: 'Bash' })]),
      sink,
      capture: { capture: 'digests' },
    });
    const [r] = sink.records;
    expect(r!.toolCall).toEqual({
      name: 'Bash',
      inputSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      commandSha256: sha256Hex('ls'),
    });
    expect(r!.reason).toBeNull();
    expect(r!.reasonSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r!.feedback).toBeNull();
    const none = new MemorySink();
    await dispatch('PreToolUse', input('ls'), {
      discovery: discovery([hook('PreToolUse', emit(0, deny), { matcher: 'Bash' })]),
      sink: none,
      capture: { capture: 'none' },
    });
    expect(none.records[0]!.toolCall).toBeNull();
    expect(none.records[0]!.reasonSha256).toBeUndefined();
  });
});

describe('run records: hooks suppressed by policy or trust', () => {
  const stopHook = (cmd: string): string =>
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: cmd }] }] } });

  it('records user hooks under allow_managed_hooks_only and an untrusted project as skipped, with the reason', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hc-records-'));
    const user = join(root, 'home', '.zerotwo');
    const system = join(root, 'etc', 'zerotwo');
    const repo = join(root, 'repo');
    for (const d of [user, system, join(repo, '.git'), join(repo, '.zerotwo')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(user, 'hooks.json'), stopHook('echo user'));
    writeFileSync(join(repo, '.zerotwo', 'hooks.json'), stopHook('echo project'));
    const req = join(system, 'requirements.toml');
    const opts = { home: user, systemDir: system, requirementsPath: req, platform: 'linux' as const, env: {} };

    // An untrusted project: its hooks are recorded as skipped (project_not_trusted); the user's hook is untrusted.
    writeFileSync(req, '[hooks]\n');
    const sink = new MemorySink();
    await dispatch(
      'PreToolUse',
      { ...input('ls'), cwd: repo },
      { discovery: discoverHooks({ ...opts, cwd: repo }), sink },
    );
    expect(sink.records.map((r) => [r.hook.layer, r.status, r.skipReason])).toEqual([
      ['user', 'skipped', 'untrusted'],
      ['project', 'skipped', 'project_not_trusted'],
    ]);

    // allow_managed_hooks_only: the user's and the project's hooks are recorded as suppressed by it.
    writeFileSync(req, 'allow_managed_hooks_only = true\n[hooks]\n');
    writeFileSync(join(user, 'config.toml'), `[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`);
    const managedOnly = new MemorySink();
    const sessionHooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo session' }] }] };
    await dispatch(
      'PreToolUse',
      { ...input('ls'), cwd: repo },
      { discovery: discoverHooks({ ...opts, cwd: repo, sessionHooks }), sink: managedOnly },
    );
    expect(managedOnly.records.map((r) => [r.hook.layer, r.status, r.skipReason])).toEqual([
      ['project', 'skipped', 'allow_managed_hooks_only'],
      ['user', 'skipped', 'allow_managed_hooks_only'],
      ['session', 'skipped', 'allow_managed_hooks_only'],
    ]);
    // Only hooks whose matcher fires are recorded.
    const other = new MemorySink();
    await dispatch(
      'PreToolUse',
      { ...input('ls'), tool_name: 'Write', cwd: repo },
      { discovery: discoverHooks({ ...opts, cwd: repo }), sink: other },
    );
    expect(other.records).toEqual([]);
  });
});
