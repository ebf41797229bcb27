// zerotwo-hooks: list, trust, disable, enable, trust-project, explain, dispatch, lint (see README "Engine → CLI").
import { Command, CommanderError } from 'commander';
import { explain } from '../engine/explain';
import { commandFor } from '../run/shell';
import type { Discovery } from '../types';
import { HOOK_CORE_VERSION } from '../version';
import { discoverFor, withLocations, type CliOptions } from './options';
import { registerManagementCommands } from './manage';
import { CliError, cliFailure, EXIT, EXIT_CODES_HELP, processIo, type CliIo, type CliState } from './common';
import { eventArg, runDispatch } from './dispatch-command';

export { CliError, EXIT, EXIT_CODES_HELP, processIo, type CliIo, type CliState };

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
    .action((name: string, opts: CliOptions) => runDispatch(name, opts, io));

  registerManagementCommands(program, io, state);
  return program;
}

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
    return cliFailure(e, io);
  }
}
