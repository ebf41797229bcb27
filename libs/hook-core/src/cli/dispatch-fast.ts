// The fast path of `zerotwo-hooks dispatch <event>` (every hook event of a machine is a process running it): the
// command line is read here without building the commander program, and only the modules a dispatch needs are
// loaded. It takes the plain lines an agent writes — `dispatch <event>` with the location/run options of
// ./options (`--flag value` or `--flag=value`) — and nothing else: help, version, an unknown or misspelt option, a
// value that looks like an option, `--`, an unknown event or a value the program would refuse all return undefined,
// and the caller runs the full program, which handles them as it always did (same output, same errors).
import { CAPTURE_MODES, type CaptureMode } from '../record/capture-limits';
import { cliFailure, processIo, type CliIo } from './common';
import { excerptBytesError, type CliOptions } from './locations';
import { isHookEvent } from '../config/events';

/** Options that take a value, and the option they set (`plugin` and `redact` collect, the others: last one wins). */
export const FAST_VALUE_FLAGS: Readonly<Record<string, keyof CliOptions>> = {
  '--home': 'home',
  '--project': 'project',
  '--system-dir': 'systemDir',
  '--requirements': 'requirements',
  '--plugin': 'plugin',
  '--temp-dir': 'tempDir',
  '--spool': 'spool',
  '--cwd': 'cwd',
  '--capture': 'capture',
  '--redact': 'redact',
  '--max-excerpt-bytes': 'maxExcerptBytes',
  '--policy-revision': 'policyRevision',
};

/** Options without a value, and what they set. */
export const FAST_BOOLEAN_FLAGS: Readonly<Record<string, readonly [keyof CliOptions, boolean]>> = {
  '--dangerously-bypass-hook-trust': ['dangerouslyBypassHookTrust', true],
  '--login-shell': ['loginShell', true],
  '--default-redact': ['defaultRedact', true],
  '--no-default-redact': ['defaultRedact', false],
};

/** The event and options of a plain `dispatch <event> [options]` line, or undefined for anything else. */
export function parseDispatchLine(argv: readonly string[]): { event: string; opts: CliOptions } | undefined {
  if (argv[0] !== 'dispatch') return undefined;
  const opts: CliOptions = { plugin: [], redact: [] };
  const o = opts as unknown as Record<string, unknown>;
  let event: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) {
      if (event !== undefined) return undefined; // an excess argument: the program's error
      event = a;
      continue;
    }
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const bool = FAST_BOOLEAN_FLAGS[flag];
    if (bool !== undefined) {
      if (eq > 0) return undefined;
      o[bool[0]] = bool[1];
      continue;
    }
    const key = FAST_VALUE_FLAGS[flag];
    if (key === undefined) return undefined; // help, version, `--`, an unknown option
    let value: string;
    if (eq > 0) value = a.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) return undefined;
      value = next;
      i++;
    }
    if (key === 'plugin' || key === 'redact') (o[key] as string[]).push(value);
    else if (key === 'capture') {
      if (!(CAPTURE_MODES as readonly string[]).includes(value)) return undefined;
      opts.capture = value as CaptureMode;
    } else if (key === 'maxExcerptBytes') {
      if (excerptBytesError(value) !== null) return undefined;
      opts.maxExcerptBytes = Number(value);
    } else o[key] = value;
  }
  if (event === undefined || !isHookEvent(event)) return undefined;
  return { event, opts };
}

/**
 * Runs a plain dispatch line without the commander program; undefined when the line is not one (run the full
 * program then). Resolves with the exit code, as runCli does.
 */
export function dispatchFast(argv: readonly string[], io: CliIo = processIo): Promise<number> | undefined {
  const line = parseDispatchLine(argv);
  if (line === undefined) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { runDispatch } = require('./dispatch-command') as typeof import('./dispatch-command');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return runDispatch(line.event, line.opts, io).then(
    () => 0,
    (e: unknown) => cliFailure(e, io),
  );
}
