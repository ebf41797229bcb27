import { describe, expect, it } from 'vitest';
import { loadConfigTomlText, loadHooksJsonText, validateMatcher } from '../support/core';

const F = '/u/hooks.json';
// Loads a hooks.json from an object and returns (event, group index, handler index, handler) rows plus diagnostics.
function load(hooks: unknown, extra: Record<string, unknown> = {}) {
  const r = loadHooksJsonText(JSON.stringify({ ...extra, hooks }, null, 2), F);
  const rows = r.events.flatMap((e) =>
    e.groups.flatMap((g) =>
      g.handlers.map((h) => ({ event: e.event, g: g.index, h: h.index, matcher: g.matcher, ...h })),
    ),
  );
  return { rows, diags: r.diagnostics };
}

describe('matchers', () => {
  it('invalid regexes (Rust semantics) drop only their group, with a located warning', () => {
    const { rows, diags } = load({
      PreToolUse: [
        { matcher: 'Edit|*', hooks: [{ type: 'command', command: 'a' }] },
        { matcher: '(', hooks: [{ type: 'command', command: 'b' }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'c' }] },
      ],
    });
    expect(rows.map((r) => [r.g, r.handler.command])).toEqual([[2, 'c']]);
    expect(diags.filter((d) => d.code === 'invalid_matcher').map((d) => [d.path, d.line])).toEqual([
      ['$.hooks.PreToolUse[0].matcher', 5],
      ['$.hooks.PreToolUse[1].matcher', 14],
    ]);
  });

  it('rejects look-around and backreferences like the reference regex engine; accepts (?i)', () => {
    expect(validateMatcher('(?=Bash)')).toBeDefined();
    expect(validateMatcher('(a)\\1')).toBeDefined();
    expect(validateMatcher('(?i)bash')).toBeUndefined();
    expect(validateMatcher('mcp__.*')).toBeUndefined();
    expect(validateMatcher('*')).toBeUndefined();
  });

  it('null matcher is treated as absent with a warning; "" stays distinct from absent', () => {
    const { rows, diags } = load({
      SessionStart: [
        { matcher: null, hooks: [{ type: 'command', command: 'a' }] },
        { matcher: '', hooks: [{ type: 'command', command: 'b' }] },
      ],
    });
    expect(rows.map((r) => r.matcher)).toEqual([undefined, '']);
    expect(diags.map((d) => d.code)).toEqual(['null_matcher']);
  });

  it('warns that Stop/UserPromptSubmit ignore a real matcher, and about expression-like matchers', () => {
    const { rows, diags } = load({
      Stop: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'a' }] },
        { matcher: '*', hooks: [{ type: 'command', command: 'b' }] },
      ],
      PreToolUse: [{ matcher: 'tool == "Bash"', hooks: [{ type: 'command', command: 'c' }] }],
    });
    expect(rows).toHaveLength(3);
    expect(diags.map((d) => `${d.code}@${d.path}`)).toEqual([
      'matcher_ignored@$.hooks.Stop[0].matcher',
      'matcher_suspicious@$.hooks.PreToolUse[0].matcher',
    ]);
  });

  it('an invalid matcher on an event that ignores matchers drops nothing (the reference does not compile it)', () => {
    const { rows, diags } = load({
      UserPromptSubmit: [{ matcher: '(', hooks: [{ type: 'command', command: 'a' }] }],
      Stop: [{ matcher: '[', hooks: [{ type: 'command', command: 'b' }] }],
    });
    expect(rows.map((r) => r.handler.command)).toEqual(['a', 'b']);
    expect(diags.map((d) => d.code)).toEqual(['matcher_ignored', 'matcher_ignored']);
  });
});

describe('handlers', () => {
  it('parses prompt/agent and async:true but marks them unsupported with warnings', () => {
    const { rows, diags } = load({
      Stop: [
        {
          hooks: [
            { type: 'prompt', prompt: 'p' },
            { type: 'agent', prompt: 'x' },
            { type: 'command', command: 'a', async: true },
            { type: 'command', command: 'b', async: false },
          ],
        },
      ],
    });
    expect(rows.map((r) => r.unsupported === undefined)).toEqual([false, false, false, true]);
    expect(diags.map((d) => d.code)).toEqual([
      'handler_type_unsupported',
      'handler_type_unsupported',
      'async_unsupported',
    ]);
  });

  it('unknown keys (if, args, once) warn precisely; the hook is kept', () => {
    const { rows, diags } = load({
      PostToolUse: [
        {
          matcher: 'Write',
          hooks: [{ type: 'command', command: 'node', args: ['x.js'], if: 'Write(**/*.rs)', once: true }],
        },
      ],
    });
    expect(rows).toHaveLength(1);
    expect(diags.map((d) => `${d.code}@${d.path}`)).toEqual([
      'unknown_key@$.hooks.PostToolUse[0].hooks[0].args',
      'unknown_key@$.hooks.PostToolUse[0].hooks[0].if',
      'unknown_key@$.hooks.PostToolUse[0].hooks[0].once',
    ]);
    expect(diags[0]?.message).toContain('without these arguments');
  });

  it('timeouts: kept as written (no ms conversion), huge values warn, invalid ones drop the handler', () => {
    const { rows, diags } = load({
      PreToolUse: [
        {
          hooks: [
            { type: 'command', command: 'a', timeout: 5000 },
            { type: 'command', command: 'b', timeout: -1 },
            { type: 'command', command: 'c', timeout: '30' },
            { type: 'command', command: 'd', timeout: 0 },
          ],
        },
      ],
    });
    expect(rows.map((r) => [r.handler.command, r.handler.timeout])).toEqual([
      ['a', 5000],
      ['d', 0],
    ]);
    expect(diags.map((d) => d.code)).toEqual(['timeout_suspicious', 'invalid_timeout', 'invalid_timeout']);
  });

  it('SessionEnd above 3 s and additionalContextLimit on non-context events give the reference warnings once per file', () => {
    const { diags } = load({
      SessionEnd: [
        {
          hooks: [
            { type: 'command', command: 'a', timeout: 60 },
            { type: 'command', command: 'b', timeout: 10, additionalContextLimit: 5 },
          ],
        },
      ],
      Stop: [{ hooks: [{ type: 'command', command: 'a', additionalContextLimit: 5 }] }],
    });
    expect(diags.map((d) => d.message)).toEqual([
      `clamping SessionEnd hook timeout to 3s in ${F}`,
      `ignoring additionalContextLimit for SessionEnd hook in ${F}: this event cannot emit additionalContext`,
      `ignoring additionalContextLimit for Stop hook in ${F}: this event cannot emit additionalContext`,
    ]);
  });

  it('command handlers need a command; commandWindows and command_windows are both read', () => {
    const { rows, diags } = load({
      Stop: [
        {
          hooks: [
            { type: 'command' },
            { type: 'command', command: 'a', command_windows: 'w' },
            { type: 'command', command: 'b', commandWindows: 'v' },
          ],
        },
      ],
    });
    expect(rows.map((r) => r.handler.commandWindows)).toEqual(['w', 'v']);
    expect(diags.map((d) => d.code)).toEqual(['invalid_handler']);
  });
});

describe('files', () => {
  it('unknown events warn; events outside a "hooks" wrapper are reported, not silently read', () => {
    const r = loadHooksJsonText(JSON.stringify({ PreToolUse: [], hooks: { ConfigChange: [], Stop: [] } }), F);
    expect(r.diagnostics.map((d) => `${d.code}@${d.path}`)).toEqual([
      'missing_hooks_wrapper@$.PreToolUse',
      'unknown_event@$.hooks.ConfigChange',
    ]);
  });

  it('a trailing comma is a located syntax error that drops the file', () => {
    const r = loadHooksJsonText('{\n  "hooks": {\n    "Stop": [1,]\n  }\n}', F);
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: 'json_syntax', line: 3, column: 15, severity: 'warning' }),
    ]);
  });

  it('config.toml warnings carry TOML line:column; [hooks.state] is the trust store, not an event', () => {
    const text =
      '[hooks.state."/x:stop:0:0"]\ntrusted_hash = "sha256:0"\n\n[[hooks.PreToolUse]]\nmatcher = "("\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "a"\n\n[[hooks.Nope]]\n';
    const r = loadConfigTomlText(text, '/u/config.toml');
    expect(r.diagnostics.map((d) => `${d.code}@${d.line}:${d.column}`)).toEqual([
      'invalid_matcher@5:1',
      'unknown_event@11:1',
    ]);
  });

  it('TOML syntax errors carry line and column', () => {
    const r = loadConfigTomlText('a = 1\nb = [1,\n', '/u/config.toml');
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'toml_syntax', line: 3 });
  });
});

describe('matcher escapes', () => {
  it('accepts Rust-style escapes of ASCII punctuation', () => {
    expect(validateMatcher('a\\!b')).toBeUndefined();
    expect(validateMatcher('\\.(md|txt)$')).toBeUndefined();
    expect(validateMatcher('a\\qb')).toBeDefined();
  });
});
