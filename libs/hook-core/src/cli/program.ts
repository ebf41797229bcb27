// zerotwo-hooks: list, trust, disable, enable, trust-project, explain, dispatch, lint (see README "Engine → CLI").
import { Command, CommanderError } from 'commander';
import { isHookEvent } from '../config/events';
import { MAX_JSON_DEPTH, tooDeepAt } from '../config/json-located';
import { dispatch } from '../engine/dispatch';
import { explain } from '../engine/explain';
import { commandFor } from '../run/shell';
import { SpoolSink } from '../record/spool';
import type { Discovery, HookEvent } from '../types';
import { HOOK_CORE_VERSION } from '../version';
import { capturePolicy, discoverFor, discoverOptions, withLocations, type CliOptions } from './options';
import { managedRequirementsPath } from '../config/discover';
import { shadowRequirementsPath } from '../engine/shadow';
import { holdManagedLayer } from '../config/layer-gate';
import { registerManagementCommands } from './manage';
import { CliError, EXIT, processIo, type CliIo, type CliState } from './common';

export { CliError, EXIT, processIo, type CliIo, type CliState };

/** Parse an event name or fail with a usage error. */
function eventArg(name: string): HookEvent {
  if (!isHookEvent(name)) throw new CliError(`unknown event ${JSON.stringify(name)}`, EXIT.USAGE);
  return name;
}

/** Human listing of a discovery (the spec's /hooks view); each hook shows the command it runs on `platform`. */
export function renderList(d: Discovery, platform: NodeJS.Platform = process.platform): string {
  const lines: string[] = [`hooks: ${d.hooksEnabled ? 'on' : 'off'} (${d.featureReason})`];
  for (const h of d.hooks) {
    const status =
      h.error !== undefined ? `${h.trust}, unreadable` : h.unsupported ? `${h.trust}, unsupported` : h.trust;
    lines.push(
      `${status.padEnd(10)} ${h.event.padEnd(17)} ${JSON.stringify(h.matcher ?? null).padEnd(16)} ${h.layer.padEnd(8)} ${h.key}`,
      `           ${h.hash}  ${commandFor(h, platform) || `(${h.handler.type})`}${h.unsupported ? `  [${h.unsupported}]` : ''}`,
    );
    if (h.error !== undefined) lines.push(`           error: ${h.error} (never runs; recorded as failed)`);
  }
  if (d.hooks.length === 0) lines.push('(no hooks)');
  for (const s of d.skipped) lines.push(`skipped ${s.layer} ${s.path}: ${s.reason}`);
  for (const g of d.diagnostics)
    lines.push(
      `${g.severity}: ${g.message}${g.file ? ` (${g.file}${g.line ? `:${g.line}:${g.column ?? 1}` : ''})` : ''}`,
    );
  return lines.join('\n') + '\n';
}

/** Build the commander program bound to the given streams. */
export function buildProgram(io: CliIo, state: CliState = { exitCode: EXIT.OK }): Command {
  const program = new Command('zerotwo-hooks')
    .description('ZeroCode hooks engine: list, trust, explain and dispatch hooks')
    .version(HOOK_CORE_VERSION, '-V, --version', 'print the engine version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError()
    .addHelpText('after', EXIT_CODES_HELP);

  withLocations(program.command('list'))
    .description('every discovered hook with source, event, matcher, key, hash and status, and every skipped source')
    .option('--json', 'print JSON')
    .action((opts: CliOptions & { json?: boolean }) => {
      const d = discoverFor(opts);
      io.out(opts.json ? JSON.stringify(d, null, 2) + '\n' : renderList(d));
      if (d.diagnostics.some((g) => g.severity === 'error')) state.exitCode = EXIT.CONFIG;
    });

  withLocations(program.command('explain <event>'))
    .description('for each hook of an event: would it run, and if not, why (nothing is executed)')
    .option('--tool <name>', 'tool name (PreToolUse, PermissionRequest, PostToolUse)')
    .option('--source <s>', 'SessionStart source')
    .option('--trigger <t>', 'PreCompact/PostCompact trigger')
    .option('--agent-type <a>', 'SubagentStart/SubagentStop agent type')
    .option('--reason <r>', 'SessionEnd reason')
    .option('--json', 'print JSON')
    .action(
      (
        name: string,
        opts: CliOptions & {
          tool?: string;
          source?: string;
          trigger?: string;
          agentType?: string;
          reason?: string;
          json?: boolean;
        },
      ) => {
        const event = eventArg(name);
        const d = discoverFor(opts);
        const r = explain(d, event, opts, { bypassTrust: opts.dangerouslyBypassHookTrust });
        if (opts.json) {
          io.out(JSON.stringify(r, null, 2) + '\n');
          return;
        }
        const lines = [
          `${event}: the matcher sees ${r.matcherInput === null ? '(nothing: matchers are ignored)' : JSON.stringify(r.matcherInput)}; hooks ${r.hooksEnabled ? 'on' : 'off'} (${r.featureReason})`,
        ];
        for (const h of r.hooks)
          lines.push(`${h.wouldRun ? 'RUN ' : 'SKIP'} ${h.key}  ${h.wouldRun ? '' : `(${h.reason})`}`);
        if (r.hooks.length === 0) lines.push(`(no ${event} hooks)`);
        for (const s of r.skippedSources) lines.push(`skipped ${s.layer} ${s.path}: ${s.reason}`);
        io.out(lines.join('\n') + '\n');
      },
    );

  withLocations(program.command('dispatch <event>'), { lenientRedact: true })
    .description('read the event input JSON on stdin, run the hooks, print {event, outcome, runs, warnings}')
    .action(async (name: string, opts: CliOptions) => {
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
    });

  registerManagementCommands(program, io, state);
  return program;
}

/** Exit codes, as printed at the end of `--help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  success (dispatch: the hooks ran, the decision is in the printed JSON; lint: no errors)
  1  usage or internal error (unknown command, event or option, an invalid option value, stdin not a JSON object)
  2  configuration error (lint: something would stop a configured hook from running; an unknown hook key;
     changing a managed hook; list: discovery reported an error, e.g. a requirements.toml that fails closed)
`;

/** Value-taking flags of the location/run options (long and short spellings). */
function valueFlags(): Set<string> {
  const flags = new Set<string>();
  for (const o of withLocations(new Command()).options) {
    if (!o.required && !o.optional) continue;
    if (o.long) flags.add(o.long);
    if (o.short) flags.add(o.short);
  }
  return flags;
}

/** Every flag of the location/run options. */
function locationFlags(): Set<string> {
  const flags = new Set<string>();
  for (const o of withLocations(new Command()).options) {
    if (o.long) flags.add(o.long);
    if (o.short) flags.add(o.short);
    if (o.negate && o.long) flags.add(o.long);
  }
  return flags;
}

/**
 * Moves location/run options written before the subcommand (`zerotwo-hooks --home H list`) to just after it, where
 * the subcommand parses them; anything else (help, version, unknown options) is left for commander to handle.
 */
export function hoistGlobalOptions(argv: readonly string[]): string[] {
  const known = locationFlags();
  const withValue = valueFlags();
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const a = argv[i] ?? '';
    if (!a.startsWith('-') || a === '--') break;
    const flag = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (!known.has(flag)) return [...argv];
    leading.push(a);
    i++;
    if (withValue.has(flag) && !a.includes('=') && i < argv.length) leading.push(argv[i++] ?? '');
  }
  if (leading.length === 0 || i >= argv.length || argv[i] === '--') return [...argv];
  return [argv[i] ?? '', ...leading, ...argv.slice(i + 1)];
}

/** Run the CLI with arguments (without node and script); resolves with the exit code (never rejects, no stacks). */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const state: CliState = { exitCode: EXIT.OK };
  const program = buildProgram(io, state);
  try {
    await program.parseAsync(hoistGlobalOptions(argv), { from: 'user' });
    return state.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    if (e instanceof CliError) {
      io.err(`zerotwo-hooks: ${e.message}\n`);
      return e.exitCode;
    }
    // Never a stack trace: the message says what failed.
    io.err(`zerotwo-hooks: error: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.USAGE;
  }
}
