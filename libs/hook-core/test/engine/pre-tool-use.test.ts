// Conformance: PreToolUse output semantics, with real hook scripts.
import { describe, expect, it } from 'vitest';
import { dispatch } from '../support/core';
import { bashInput, discovery, emit, hook } from './support';

const deny = (reason?: string): unknown => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    ...(reason ? { permissionDecisionReason: reason } : {}),
  },
});
const rewrite = (command: string): unknown => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command } },
});
/** Dispatch PreToolUse to hooks running the given commands, in that configured order. */
const run = (cmds: string[], input = bashInput()) =>
  dispatch('PreToolUse', input, { discovery: discovery(cmds.map((c) => hook('PreToolUse', c, { matcher: 'Bash' }))) });

describe('PreToolUse', () => {
  it('exit 0 without output is success, no decision', async () => {
    const r = await run([emit(0)]);
    expect(r.outcome).toMatchObject({ continue: true, failures: 0, reasons: [] });
    expect(r.outcome.decision).toBeUndefined();
    expect(r.runs[0]).toMatchObject({ status: 'ran', verdict: 'no_output', exitCode: 0, effect: 'none' });
  });

  it('deny (hookSpecificOutput) blocks with the reference text', async () => {
    const r = await run([emit(0, deny('Destructive command blocked by hook.'))]);
    expect(r.outcome.decision).toBe('deny');
    expect(r.outcome.reason).toBe('Destructive command blocked by hook.');
    expect(r.outcome.blockMessage).toBe(
      'Command blocked by PreToolUse hook: Destructive command blocked by hook.. Command: rm -rf build',
    );
    expect(r.runs[0]).toMatchObject({ decision: 'deny', effect: 'deny', verdict: 'json' });
  });

  it('legacy {decision:"block"} and exit 2 + stderr deny the same way', async () => {
    for (const cmd of [emit(0, { decision: 'block', reason: 'nope' }), emit(2, '', 'nope')]) {
      const r = await run([cmd]);
      expect(r.outcome).toMatchObject({ decision: 'deny', reason: 'nope' });
    }
  });

  it('deny without a reason fails and the tool runs', async () => {
    const r = await run([emit(0, deny())]);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.outcome.failures).toBe(1);
    expect(r.runs[0]!.status).toBe('failed');
    expect(r.runs[0]!.error).toContain('deny without a non-empty permissionDecisionReason');
  });

  it('exit 2 with empty stderr is a failure, not a block', async () => {
    const r = await run([emit(2, '', '  ')]);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.runs[0]).toMatchObject({ status: 'failed', exitCode: 2 });
    expect(r.runs[0]!.error).toContain('did not write a blocking reason');
  });

  it('other exit codes fail without blocking', async () => {
    const r = await run([emit(1, deny('ignored'), 'boom')]);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.runs[0]!.error).toBe('hook exited with code 1');
  });

  it.each([
    ['continue:false', { continue: false }],
    ['stopReason', { stopReason: 'x' }],
    ['suppressOutput', { suppressOutput: true }],
    ['permissionDecision:ask', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask' } }],
    ['permissionDecision:allow', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }],
    ['decision:approve', { decision: 'approve' }],
    [
      'updatedInput without allow',
      { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'x' } } },
    ],
    [
      'updatedInput without a string command (Bash)',
      { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { cmd: 'x' } } },
    ],
    ['invalid JSON-looking output', '{"hookSpecificOutput": '],
    ['wrong hookEventName', { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'x' } }],
  ])('unsupported/invalid output fails the run and the tool continues: %s', async (_name, out) => {
    const r = await run([emit(0, out)]);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.outcome.updatedInput).toBeUndefined();
    expect(r.outcome.failures).toBe(1);
    expect(r.runs[0]!.status).toBe('failed');
    expect(r.warnings.some((w) => w.includes('failed'))).toBe(true);
  });

  it('plain text stdout is ignored', async () => {
    const r = await run([emit(0, 'just some text')]);
    expect(r.outcome).toMatchObject({ failures: 0, additionalContext: [] });
    expect(r.runs[0]!.verdict).toBe('plain_text_ignored');
  });

  it('allow + updatedInput rewrites the call', async () => {
    const r = await run([emit(0, rewrite('echo rewritten'))]);
    expect(r.outcome).toMatchObject({ decision: 'allow', updatedInput: { command: 'echo rewritten' } });
    expect(r.runs[0]!.effect).toBe('rewrite');
  });

  it('MCP tools: updatedInput is the replacement arguments object', async () => {
    const input = { ...bashInput(), tool_name: 'mcp__fs__read', tool_input: { path: '/a' } };
    const d = discovery([
      hook(
        'PreToolUse',
        emit(0, { hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { path: '/b' } } }),
      ),
    ]);
    const r = await dispatch('PreToolUse', input, { discovery: d });
    expect(r.outcome.updatedInput).toEqual({ path: '/b' });
  });

  it('additionalContext and systemMessage are collected in configured order', async () => {
    const ctx = (t: string) => ({
      systemMessage: `sys ${t}`,
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: t },
    });
    const r = await run([emit(0, ctx('first'), '', '0.3'), emit(0, ctx('second'))]);
    expect(r.outcome.additionalContext).toEqual(['first', 'second']);
    expect(r.outcome.systemMessages).toEqual(['sys first', 'sys second']);
  });

  it('any deny wins over an allow/rewrite, whatever the order', async () => {
    for (const cmds of [
      [emit(0, rewrite('echo a')), emit(0, deny('no'))],
      [emit(0, deny('no')), emit(0, rewrite('echo a'))],
    ]) {
      const r = await run(cmds);
      expect(r.outcome.decision).toBe('deny');
      expect(r.outcome.updatedInput).toBeUndefined();
      expect(r.runs.map((x) => x.effect).sort()).toEqual(['deny', 'rewrite_ignored']);
    }
  });

  it('two rewrites: the first in configured order wins even when it finishes last; the conflict is reported', async () => {
    const r = await run([emit(0, rewrite('echo first'), '', '0.5'), emit(0, rewrite('echo second'))]);
    expect(r.outcome.updatedInput).toEqual({ command: 'echo first' });
    expect(r.outcome.conflicts).toHaveLength(1);
    expect(r.warnings.join('\n')).toContain('conflicting updatedInput');
    expect(r.runs.map((x) => x.effect)).toEqual(['rewrite', 'rewrite_ignored']);
  });

  it('the hook receives the canonical input on stdin (tool_name Bash for exec_command)', async () => {
    const r = await dispatch(
      'PreToolUse',
      { ...bashInput('ls'), tool_name: 'exec_command', permission_mode: 'plan' },
      {
        discovery: discovery([hook('PreToolUse', `${emit(0)}; cat >&2; exit 1`, { matcher: '^Bash$' })]),
        capture: { capture: 'excerpts', maxExcerptBytes: 4096 },
      },
    );
    const stdin = JSON.parse(r.runs[0]!.stderr!.excerpt!);
    expect(stdin).toEqual({
      session_id: 'sess-1',
      transcript_path: null,
      cwd: expect.any(String),
      hook_event_name: 'PreToolUse',
      model: 'gpt-test',
      turn_id: 'turn-1',
      tool_name: 'Bash',
      tool_use_id: 'call-1',
      tool_input: { command: 'ls' },
      permission_mode: 'plan',
    });
    expect(r.runs[0]!.matcherInput).toBe('Bash');
  });
});
