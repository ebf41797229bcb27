// Conformance: output semantics of every other event, with real hook scripts.
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { dispatch, type HookEvent } from '../support/core';
import { discovery, emit, hook } from './support';

const base = { session_id: 's', turn_id: 't', cwd: tmpdir(), model: 'm' };
/** Dispatch an event to hooks running the given commands in configured order. */
const run = (event: HookEvent, cmds: string[], input: Record<string, unknown> = {}) =>
  dispatch(event, { ...base, ...input }, { discovery: discovery(cmds.map((c) => hook(event, c))) });

describe('PermissionRequest', () => {
  const decide = (behavior: string, message?: string) => ({
    hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior, ...(message ? { message } : {}) } },
  });
  const input = { tool_name: 'Bash', tool_input: { command: 'curl x', description: 'network' } };
  it('any deny wins, else allow, else no decision', async () => {
    expect(
      (await run('PermissionRequest', [emit(0, decide('allow')), emit(0, decide('deny', 'policy'))], input)).outcome,
    ).toMatchObject({
      decision: 'deny',
      reason: 'policy',
    });
    expect((await run('PermissionRequest', [emit(0, decide('allow')), emit(0)], input)).outcome.decision).toBe('allow');
    expect((await run('PermissionRequest', [emit(0), emit(0, 'plain')], input)).outcome.decision).toBeUndefined();
  });
  it.each([
    [
      'updatedInput',
      { hookSpecificOutput: { hookEventName: 'PermissionRequest', updatedInput: {}, decision: { behavior: 'allow' } } },
    ],
    ['updatedPermissions', { hookSpecificOutput: { decision: { behavior: 'allow', updatedPermissions: [] } } }],
    ['interrupt', { hookSpecificOutput: { decision: { behavior: 'deny', interrupt: true } } }],
    ['continue:false', { continue: false }],
    ['stopReason', { stopReason: 'x' }],
    ['suppressOutput', { suppressOutput: true }],
    ['legacy approve', { decision: 'approve' }],
  ])('reserved/unsupported %s fails the run (no decision from it)', async (_n, out) => {
    const r = await run('PermissionRequest', [emit(0, out)], input);
    expect(r.outcome.decision).toBeUndefined();
    expect(r.runs[0]!.status).toBe('failed');
  });
  it('exit 2 with stderr denies', async () => {
    expect((await run('PermissionRequest', [emit(2, '', 'no network')], input)).outcome).toMatchObject({
      decision: 'deny',
      reason: 'no network',
    });
  });
});

describe('PostToolUse', () => {
  const input = { tool_name: 'Bash', tool_use_id: 'c', tool_input: { command: 'make' }, tool_response: 'OOPS\n' };
  it('decision:block replaces the tool result with the reason, context still delivered', async () => {
    const r = await run(
      'PostToolUse',
      [
        emit(0, {
          decision: 'block',
          reason: 'Needs review.',
          hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'gen files' },
        }),
      ],
      input,
    );
    expect(r.outcome).toMatchObject({
      decision: 'block',
      toolResultReplacement: 'Needs review.',
      additionalContext: ['gen files'],
      continue: true,
    });
    expect(r.runs[0]!.effect).toBe('feedback');
  });
  it('exit 2 + stderr is feedback too', async () => {
    expect((await run('PostToolUse', [emit(2, '', 'bad output')], input)).outcome.toolResultReplacement).toBe(
      'bad output',
    );
  });
  it('continue:false stops with stopReason replacing the result', async () => {
    const r = await run('PostToolUse', [emit(0, { continue: false, stopReason: 'halt here' })], input);
    expect(r.outcome).toMatchObject({ continue: false, stopReason: 'halt here', toolResultReplacement: 'halt here' });
  });
  it.each([
    ['updatedMCPToolOutput', { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedMCPToolOutput: {} } }],
    ['suppressOutput', { suppressOutput: true }],
    ['legacy approve', { decision: 'approve' }],
  ])('%s fails the run; normal processing continues', async (_n, out) => {
    const r = await run('PostToolUse', [emit(0, out)], input);
    expect(r.outcome.toolResultReplacement).toBeUndefined();
    expect(r.runs[0]!.status).toBe('failed');
  });
  it('plain text is ignored', async () => {
    expect((await run('PostToolUse', [emit(0, 'hello')], input)).outcome).toMatchObject({
      failures: 0,
      additionalContext: [],
    });
  });
});

describe('UserPromptSubmit', () => {
  const input = { prompt: 'deploy', permission_mode: 'default' };
  it('plain text and additionalContext are developer context; the matcher is ignored', async () => {
    const d = discovery([
      hook('UserPromptSubmit', emit(0, 'plain ctx'), { matcher: 'NeverMatches' }),
      hook(
        'UserPromptSubmit',
        emit(0, { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'json ctx' } }),
      ),
    ]);
    const r = await dispatch('UserPromptSubmit', { ...base, ...input }, { discovery: d });
    expect(r.outcome.additionalContext).toEqual(['plain ctx', 'json ctx']);
    expect(r.runs[0]!.matcherInput).toBeNull();
  });
  it('block via JSON or exit 2; continue:false stops', async () => {
    expect(
      (await run('UserPromptSubmit', [emit(0, { decision: 'block', reason: 'confirm first' })], input)).outcome,
    ).toMatchObject({
      decision: 'block',
      reason: 'confirm first',
    });
    expect((await run('UserPromptSubmit', [emit(2, '', 'api key pasted')], input)).outcome.decision).toBe('block');
    expect(
      (await run('UserPromptSubmit', [emit(0, { continue: false, stopReason: 'r' })], input)).outcome,
    ).toMatchObject({
      continue: false,
      stopReason: 'r',
    });
  });
});

describe.each(['Stop', 'SubagentStop'] as const)('%s', (event) => {
  const input = event === 'Stop' ? { stop_hook_active: false } : { agent_id: 'a', agent_type: 'worker' };
  it('block creates the continuation prompt (hook_prompt wrapped) from the reasons in configured order', async () => {
    const r = await run(
      event,
      [emit(0, { decision: 'block', reason: 'one more pass' }, '', '0.3'), emit(2, '', 'fix tests')],
      input,
    );
    expect(r.outcome.decision).toBe('block');
    expect(r.outcome.reasons).toEqual(['one more pass', 'fix tests']);
    expect(r.outcome.continuation).toMatch(
      /^<hook_prompt hook_run_id="[a-z_]+:\d+:[^"]+">one more pass<\/hook_prompt>\n<hook_prompt hook_run_id="[^"]+">fix tests<\/hook_prompt>$/,
    );
    expect(r.runs.map((x) => x.effect)).toEqual(['continuation', 'continuation']);
  });
  it('continue:false from any hook wins over blocks', async () => {
    const r = await run(
      event,
      [emit(0, { decision: 'block', reason: 'again' }), emit(0, { continue: false, stopReason: 'done' })],
      input,
    );
    expect(r.outcome).toMatchObject({ continue: false, stopReason: 'done' });
    expect(r.outcome.continuation).toBeUndefined();
    expect(r.outcome.decision).toBeUndefined();
    expect(r.runs[0]!.effect).toBe('continuation_overridden');
  });
  it('plain text is invalid (failed, no continuation)', async () => {
    const r = await run(event, [emit(0, 'keep going')], input);
    expect(r.runs[0]!.status).toBe('failed');
    expect(r.outcome.continuation).toBeUndefined();
  });
  it('exit 2 with empty stderr fails; block without reason fails', async () => {
    expect((await run(event, [emit(2)], input)).runs[0]!.status).toBe('failed');
    expect((await run(event, [emit(0, { decision: 'block' })], input)).runs[0]!.status).toBe('failed');
  });
});

describe('SessionStart / SubagentStart / compaction / SessionEnd', () => {
  it('SessionStart: plain text and JSON context; continue:false stops; matcher filters source', async () => {
    const d = discovery([
      hook('SessionStart', emit(0, 'notes'), { matcher: 'startup|resume' }),
      hook('SessionStart', emit(0, 'never'), { matcher: 'compact' }),
      hook(
        'SessionStart',
        emit(0, {
          continue: false,
          stopReason: 'bye',
          hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'j' },
        }),
      ),
    ]);
    const r = await dispatch('SessionStart', { ...base, source: 'startup' }, { discovery: d });
    expect(r.outcome).toMatchObject({ additionalContext: ['notes', 'j'], continue: false, stopReason: 'bye' });
    expect(r.runs).toHaveLength(2);
  });
  it('SubagentStart: context delivered, continue:false does NOT stop', async () => {
    const r = await run('SubagentStart', [emit(0, 'sub ctx'), emit(0, { continue: false })], {
      agent_id: 'a',
      agent_type: 'x',
    });
    expect(r.outcome).toMatchObject({ additionalContext: ['sub ctx'], continue: true });
  });
  it.each(['PreCompact', 'PostCompact'] as const)('%s: continue:false stops, plain text ignored', async (event) => {
    const r = await run(event, [emit(0, 'ignored'), emit(0, { continue: false, stopReason: 'no' })], {
      trigger: 'auto',
    });
    expect(r.outcome).toMatchObject({ continue: false, stopReason: 'no', additionalContext: [] });
  });
  it('exit 2 does not block events without blocking semantics', async () => {
    const r = await run('SessionStart', [emit(2, '', 'x')], { source: 'startup' });
    expect(r.outcome).toMatchObject({ continue: true, failures: 1 });
  });
  it('SessionEnd is advisory; its input has no model and reason "other"', async () => {
    const r = await dispatch(
      'SessionEnd',
      { ...base },
      {
        discovery: discovery([
          hook('SessionEnd', `cat >&2; ${emit(0, { continue: false, decision: 'block', reason: 'x' })}`, {
            timeoutSec: 1,
          }),
        ]),
        capture: { capture: 'excerpts' },
      },
    );
    expect(r.outcome).toMatchObject({ continue: true, reasons: [], additionalContext: [] });
    expect(r.outcome.decision).toBeUndefined();
    const stdin = JSON.parse(r.runs[0]!.stderr!.excerpt!);
    expect(stdin).toEqual({
      session_id: 's',
      transcript_path: null,
      cwd: base.cwd,
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
  });
  it('SessionEnd timeout is capped at 3 s', async () => {
    const r = await run('SessionEnd', [], {});
    expect(r.runs).toHaveLength(0);
    const d = discovery([hook('SessionEnd', 'sleep 10', { timeoutSec: 60 })]);
    const r2 = await dispatch('SessionEnd', base, { discovery: d });
    // The applied timeout is named in the error: 3 s, not the configured 60 (and `sleep 10` did not finish).
    expect(r2.runs[0]).toMatchObject({ status: 'timed_out', timedOut: true, error: 'hook timed out after 3s' });
  });
});
