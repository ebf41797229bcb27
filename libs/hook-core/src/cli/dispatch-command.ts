// `zerotwo-hooks dispatch <event>`: read the event input on stdin, run the hooks, print the result. Shared by the
// commander program (./program) and the fast path that runs without one (./dispatch-fast).
import { MAX_JSON_DEPTH, tooDeepAt } from '../config/json-located';
import { isHookEvent } from '../config/events';
import { managedRequirementsPath } from '../config/discover';
import { holdManagedLayer } from '../config/layer-gate';
import { dispatch } from '../engine/dispatch';
import { shadowRequirementsPath } from '../engine/shadow';
import { SpoolSink } from '../record/spool';
import type { HookEvent } from '../types';
import { CliError, EXIT, type CliIo } from './common';
import { capturePolicy, discoverFor, discoverOptions, type CliOptions } from './locations';

/** Parse an event name or fail with a usage error. */
export function eventArg(name: string): HookEvent {
  if (!isHookEvent(name)) throw new CliError(`unknown event ${JSON.stringify(name)}`, EXIT.USAGE);
  return name;
}

/** Runs `dispatch <name>` with parsed options (throws CliError on a usage error). */
export async function runDispatch(name: string, opts: CliOptions, io: CliIo): Promise<void> {
  const event = eventArg(name);
  const text = await io.readStdin();
  let input: unknown;
  if (tooDeepAt(text, MAX_JSON_DEPTH) >= 0)
    throw new CliError(`stdin is nested deeper than ${MAX_JSON_DEPTH} levels`, EXIT.USAGE);
  try {
    input = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    throw new CliError(`stdin is not valid JSON: ${(e as Error).message}`, EXIT.USAGE);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new CliError('stdin must be a JSON object', EXIT.USAGE);
  const raw = input as Record<string, unknown>;
  if (opts.cwd !== undefined && raw.cwd === undefined) raw.cwd = opts.cwd;
  const cwd = typeof raw.cwd === 'string' ? raw.cwd : process.cwd();
  // Hold the managed layer (where the agent switches it in place) from before its check until the hooks are done.
  const reqPath = managedRequirementsPath(discoverOptions(opts, cwd));
  const hold = holdManagedLayer(reqPath);
  try {
    const discovery = discoverFor(opts, cwd);
    const revision = opts.policyRevision ?? process.env.HOOKWARDEN_POLICY_REVISION ?? null;
    const policy = { revision, digest: discovery.managed?.digest ?? null };
    const result = await dispatch(event, raw, {
      discovery,
      bypassTrust: opts.dangerouslyBypassHookTrust,
      tempDir: opts.tempDir,
      sink: opts.spool ? new SpoolSink(opts.spool, { policy }) : undefined,
      capture: capturePolicy(opts),
      policy,
      runner: { loginShell: opts.loginShell },
      shadow: reqPath !== undefined ? { requirementsPath: shadowRequirementsPath(reqPath) } : false,
    });
    for (const w of result.warnings)
      if (w.startsWith('invalid redaction pattern') || w.includes('hook trust is bypassed'))
        io.err(`zerotwo-hooks: warning: ${w}\n`);
    io.out(JSON.stringify(result) + '\n');
  } finally {
    hold.release();
  }
}
