// EVENT_SPEC is the one table of per-event facts; every per-event set the engine uses is derived from it.
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_EVENTS,
  EVENT_SPEC,
  HOOK_EVENTS,
  MATCHER_EVENTS,
  MATCHER_FIELD,
  buildEventInput,
  eventSnake,
  eventUsesMatcher,
  normalizeTimeout,
} from './support/core';

describe('EVENT_SPEC', () => {
  it('has exactly the spec events, with unique reference positions in the reference engine order', () => {
    expect(Object.keys(EVENT_SPEC).sort()).toEqual([...HOOK_EVENTS].sort());
    const byOrder = HOOK_EVENTS.slice().sort((a, b) => EVENT_SPEC[a].referenceOrder - EVENT_SPEC[b].referenceOrder);
    expect(byOrder).toEqual([
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'PreCompact',
      'PostCompact',
      'SessionStart',
      'SessionEnd',
      'UserPromptSubmit',
      'SubagentStart',
      'SubagentStop',
      'Stop',
    ]);
  });

  it('the derived sets say what the spec says', () => {
    expect([...MATCHER_EVENTS].sort()).toEqual(
      HOOK_EVENTS.filter((e) => e !== 'UserPromptSubmit' && e !== 'Stop').sort(),
    );
    expect([...CONTEXT_EVENTS].sort()).toEqual(
      ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SubagentStart', 'SessionStart'].sort(),
    );
    expect(MATCHER_FIELD.SessionEnd).toBe('reason');
    expect(MATCHER_FIELD.Stop).toBeUndefined();
    expect(eventUsesMatcher('UserPromptSubmit')).toBe(false);
    expect(eventSnake('SubagentStop')).toBe('subagent_stop');
  });

  it('timeouts and input fields come from the table', () => {
    expect(normalizeTimeout('SessionEnd', undefined)).toBe(1);
    expect(normalizeTimeout('SessionEnd', 60)).toBe(3);
    expect(normalizeTimeout('Stop', undefined)).toBe(600);
    expect(normalizeTimeout('Stop', 0)).toBe(1);
    const end = buildEventInput('SessionEnd', { session_id: 's', model: 'm' }).input;
    expect(end).toEqual({
      session_id: 's',
      transcript_path: null,
      cwd: expect.any(String),
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
    for (const e of HOOK_EVENTS)
      for (const field of Object.keys(EVENT_SPEC[e].inputFields))
        expect(buildEventInput(e, {}).input).toHaveProperty(field);
  });
});
