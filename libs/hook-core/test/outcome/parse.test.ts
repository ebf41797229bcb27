// parseRun edge cases that do not need a process (signals, spawn errors, non-object JSON, types).
import { describe, expect, it } from 'vitest';
import { aggregate, parseRun, type RunResult } from '../support/core';

const result = (over: Partial<RunResult>): RunResult => ({
  startedAt: 0,
  durationMs: 1,
  exitCode: 0,
  signal: null,
  timedOut: false,
  stdout: '',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  ...over,
});

describe('parseRun', () => {
  it('signals, spawn errors and timeouts are non-blocking failures', () => {
    expect(parseRun('Stop', result({ exitCode: null, signal: 'SIGSEGV' })).error).toBe(
      'hook terminated by signal SIGSEGV',
    );
    expect(parseRun('Stop', result({ spawnError: 'ENOENT' }))).toMatchObject({ status: 'failed', verdict: 'not_run' });
    expect(
      parseRun('Stop', result({ timedOut: true, exitCode: null, signal: 'SIGTERM' }), { timeoutSec: 5 }).error,
    ).toBe('hook timed out after 5s');
  });
  it('JSON that is not an object, or with wrong types, fails', () => {
    expect(parseRun('Stop', result({ stdout: '[1,2]' })).status).toBe('failed');
    expect(parseRun('Stop', result({ stdout: '{"continue":"no"}' })).error).toContain('continue must be a boolean');
    expect(parseRun('SessionStart', result({ stdout: '{"hookSpecificOutput":{"additionalContext":5}}' })).status).toBe(
      'failed',
    );
  });
  it('suppressOutput is accepted with a note where it is merely unimplemented', () => {
    const p = parseRun('SessionStart', result({ stdout: '{"suppressOutput":true}' }));
    expect(p.status).toBe('ok');
    expect(p.notes).toContain('suppressOutput is parsed but not implemented');
  });
  it('additionalContext on compaction events is ignored with a note', () => {
    const p = parseRun('PreCompact', result({ stdout: '{"hookSpecificOutput":{"additionalContext":"x"}}' }));
    expect(p.additionalContext).toBeUndefined();
    expect(p.notes[0]).toContain('ignored');
  });
  it('aggregation is a pure function of configured order', () => {
    const deny = parseRun(
      'PermissionRequest',
      result({ stdout: '{"hookSpecificOutput":{"decision":{"behavior":"deny"}}}' }),
    );
    const allow = parseRun(
      'PermissionRequest',
      result({ stdout: '{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}' }),
    );
    const a = aggregate('PermissionRequest', [
      { parsed: allow, hookRunId: 'a' },
      { parsed: deny, hookRunId: 'b' },
    ]);
    expect(a.outcome).toMatchObject({ decision: 'deny', reason: 'Denied by a PermissionRequest hook' });
    expect(a.effects.map((e) => e.decision)).toEqual(['allow', 'deny']);
  });
});
