import { describe, expect, it } from 'vitest';
import {
  canonicalToolName,
  compileMatcher,
  eventUsesMatcher,
  matcherMatches,
  matcherSubject,
  validateMatcher,
} from '../support/core';

const bash = matcherSubject('PreToolUse', { tool_name: 'Bash' });
const fires = (m: string | undefined, subject = bash): boolean | Error => matcherMatches(m, subject);

describe('matcher (reference pre_matchers cases)', () => {
  it.each(['Bash', '^Bash', '^Bash$', '*', '', undefined, '.*', '^Ba', 'B.s', 'Bas.', 'Ba.*', 'Edit|Bash'])(
    '%j fires for Bash',
    (m) => expect(fires(m)).toBe(true),
  );
  it.each(['BashOutput', 'Edit|Write', 'exec_command', 'bash', 'Ba', 'as', 'shell', 'Edit | Bash'])(
    '%j does not fire for Bash',
    (m) => expect(fires(m)).toBe(false),
  );
  it.each(['(', 'Edit|*'])('%j is an invalid regex (group dropped with a warning)', (m) => {
    expect(compileMatcher(m)).toBeInstanceOf(Error);
    expect(fires(m)).toBeInstanceOf(Error);
  });
  it('null matcher matches everything', () => expect(matcherMatches(null, bash)).toBe(true));
  it('runs matchers exactly as discovery validated them (Rust inline flags and punctuation escapes)', () => {
    expect(validateMatcher('(?i)^bash$')).toBeUndefined();
    expect(fires('(?i)^bash$')).toBe(true);
    expect(validateMatcher('Bash\\!?')).toBeUndefined();
    expect(fires('^Bash\\!?$')).toBe(true);
    expect(validateMatcher('(?=Bash)')).toBeDefined();
    expect(fires('(?=Bash)')).toBeInstanceOf(Error);
  });
});

describe('tool aliases and canonical names', () => {
  it.each(['exec_command', 'shell', 'local_shell', 'unified_exec', 'Bash'])('%s is reported as Bash', (t) => {
    expect(canonicalToolName(t)).toBe('Bash');
    expect(fires('Bash', matcherSubject('PreToolUse', { tool_name: t }))).toBe(true);
    expect(fires('^exec_command$', matcherSubject('PreToolUse', { tool_name: t }))).toBe(false);
  });
  it('apply_patch matches apply_patch, Edit and Write', () => {
    const s = matcherSubject('PostToolUse', { tool_name: 'apply_patch' });
    for (const m of ['apply_patch', '^apply_patch$', 'Edit', 'Write', 'Edit|Write', '^Edit$'])
      expect(fires(m, s)).toBe(true);
    expect(fires('Bash', s)).toBe(false);
    expect(canonicalToolName('apply_patch')).toBe('apply_patch');
  });
  it('spawn_agent also matches Agent', () => {
    const s = matcherSubject('PreToolUse', { tool_name: 'spawn_agent' });
    expect(fires('Agent', s)).toBe(true);
    expect(fires('spawn_agent', s)).toBe(true);
  });
  it('MCP names: exact and regex', () => {
    const s = matcherSubject('PreToolUse', { tool_name: 'mcp__filesystem__read_file' });
    expect(fires('mcp__filesystem__read_file', s)).toBe(true);
    expect(fires('mcp__filesystem__.*', s)).toBe(true);
    expect(fires('mcp__filesystem', s)).toBe(false);
  });
});

describe('matcher field per event', () => {
  it('SessionStart filters source (ss_matchers)', () => {
    const s = matcherSubject('SessionStart', { source: 'startup' });
    expect(fires('startup', s)).toBe(true);
    expect(fires('^startup$', s)).toBe(true);
    expect(fires('resume|clear', s)).toBe(false);
    expect(fires('compact', s)).toBe(false);
  });
  it('Pre/PostCompact filter trigger', () => {
    for (const ev of ['PreCompact', 'PostCompact'] as const) {
      expect(fires('manual|auto', matcherSubject(ev, { trigger: 'auto' }))).toBe(true);
      expect(fires('manual', matcherSubject(ev, { trigger: 'auto' }))).toBe(false);
    }
  });
  it('SessionEnd filters reason, Subagent* filter agent_type', () => {
    expect(fires('other', matcherSubject('SessionEnd', { reason: 'other' }))).toBe(true);
    expect(fires('explorer', matcherSubject('SubagentStart', { agent_type: 'explorer' }))).toBe(true);
    expect(fires('explorer', matcherSubject('SubagentStop', { agent_type: 'worker' }))).toBe(false);
  });
  it('UserPromptSubmit and Stop ignore any matcher', () => {
    for (const ev of ['UserPromptSubmit', 'Stop'] as const) {
      expect(eventUsesMatcher(ev)).toBe(false);
      expect(matcherSubject(ev, { prompt: 'x' })).toBeUndefined();
      expect(matcherMatches('NeverMatches', matcherSubject(ev, {}))).toBe(true);
    }
  });
});
