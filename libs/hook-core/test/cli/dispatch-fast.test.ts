// The dispatch fast path (cli/dispatch-fast): it takes exactly the lines the commander program would parse the same
// way, with the same options; anything else is left to the program.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { FAST_BOOLEAN_FLAGS, FAST_VALUE_FLAGS, parseDispatchLine } from '../../src/cli/dispatch-fast';
import { withLocations } from '../../src/cli/options';

/** What the program's `dispatch <event>` command parses from a line (event and options). */
function viaCommander(argv: string[]): { event: string; opts: Record<string, unknown> } {
  let got: { event: string; opts: Record<string, unknown> } | undefined;
  const program = new Command('zerotwo-hooks').exitOverride();
  withLocations(program.command('dispatch <event>'), { lenientRedact: true }).action((event: string, opts) => {
    got = { event, opts: { ...(opts as Record<string, unknown>) } };
  });
  program.parse(argv, { from: 'user' });
  if (!got) throw new Error('no action');
  return got;
}

describe('dispatch fast path', () => {
  it('knows every location/run option of the program, with the same arity', () => {
    const program = withLocations(new Command());
    const fromProgram = new Map(program.options.map((o) => [o.long!, o.required || o.optional]));
    const fast = new Map<string, boolean>([
      ...Object.keys(FAST_VALUE_FLAGS).map((f) => [f, true] as [string, boolean]),
      ...Object.keys(FAST_BOOLEAN_FLAGS).map((f) => [f, false] as [string, boolean]),
    ]);
    expect(fast).toEqual(fromProgram);
  });

  it.each([
    [['dispatch', 'PreToolUse']],
    [['dispatch', 'Stop', '--home', '/h', '--project=/p', '--system-dir', '/s', '--requirements', '/r.toml']],
    [['dispatch', '--home', '/h', 'PostToolUse', '--plugin', '/a', '--plugin=/b', '--temp-dir', '/t']],
    [['dispatch', 'PreToolUse', '--spool', '/sp', '--cwd', '/c', '--capture', 'excerpts', '--capture=none']],
    [['dispatch', 'PreToolUse', '--redact', 'a+', '--redact', '(', '--max-excerpt-bytes', '100']],
    [['dispatch', 'PreToolUse', '--default-redact', '--no-default-redact', '--policy-revision', '7']],
    [['dispatch', 'PreToolUse', '--no-default-redact', '--default-redact', '--login-shell']],
    [['dispatch', 'PreToolUse', '--dangerously-bypass-hook-trust', '--home', '', '--max-excerpt-bytes=0']],
  ])('parses %j as the program does', (argv) => {
    const fast = parseDispatchLine(argv);
    expect(fast).toBeDefined();
    expect({ event: fast!.event, opts: { ...fast!.opts } }).toEqual(viaCommander(argv));
  });

  it.each([
    [['list']],
    [['dispatch']],
    [['dispatch', 'PreToolUse', '--help']],
    [['dispatch', 'PreToolUse', '-h']],
    [['dispatch', 'PreToolUse', '--version']],
    [['dispatch', 'NoSuchEvent']],
    [['dispatch', 'PreToolUse', 'extra']],
    [['dispatch', 'PreToolUse', '--']],
    [['dispatch', 'PreToolUse', '--unknown']],
    [['dispatch', 'PreToolUse', '--home']],
    [['dispatch', 'PreToolUse', '--home', '--login-shell']],
    [['dispatch', 'PreToolUse', '--capture', 'all']],
    [['dispatch', 'PreToolUse', '--max-excerpt-bytes', '70000']],
    [['dispatch', 'PreToolUse', '--max-excerpt-bytes', 'ten']],
    [['dispatch', 'PreToolUse', '--login-shell=yes']],
    [['--home', '/h', 'dispatch', 'PreToolUse']],
  ])('leaves %j to the program', (argv) => {
    expect(parseDispatchLine(argv)).toBeUndefined();
  });
});
