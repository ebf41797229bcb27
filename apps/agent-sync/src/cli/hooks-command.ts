// `hookwarden-agent hooks <zerotwo-hooks arguments>`: hook-core's CLI with this endpoint's managed requirements,
// spool, policy revision and admin-governed capture policy preset; `upload-runs`: drain the spool to the server.
import path from 'node:path';
import type { Command } from 'commander';
import { runCli } from '@hookwarden/hook-core';
import { log } from '../log';
import { requirementsPathFor } from '../materialize/layer';
import { readAgentState } from '../state/agent-state';
import { readCredentials } from '../state/credentials';
import { endpointClient } from '../client/identity';
import { AGENT_VERSION } from '../version';
import { captureArgs, readCaptureSettings, refreshCaptureSettings } from '../spool/capture-settings';
import { SpoolUploader } from '../spool/uploader';
import { absoluteDir, defaultStateDir } from './options';

/** The spool directory inside the agent's state directory. */
export function spoolDirOf(stateDir: string): string {
  return path.join(stateDir, 'spool');
}

// Removes `--name value` / `--name=value` from args; returns the value (last one wins) or the fallback.
function takeOption(args: string[], name: string, fallback: string): string {
  let value = fallback;
  for (let i = 0; i < args.length;) {
    const a = args[i]!;
    if (a === name && i + 1 < args.length) {
      value = args[i + 1]!;
      args.splice(i, 2);
    } else if (a.startsWith(`${name}=`)) {
      value = a.slice(name.length + 1);
      args.splice(i, 1);
    } else i++;
  }
  return value;
}

// The zerotwo-hooks argv with the endpoint's locations and policy appended (after the user's, so they win).
export async function hooksArgv(args: string[]): Promise<string[]> {
  const rest = [...args];
  const root = absoluteDir(takeOption(rest, '--root', '/'));
  const stateDir = absoluteDir(takeOption(rest, '--state-dir', defaultStateDir()));
  if (rest.length === 0 || rest[0]!.startsWith('-')) return rest; // help, version: nothing to preset
  const state = await readAgentState(stateDir);
  const settings = await readCaptureSettings(stateDir);
  const preset = ['--requirements', requirementsPathFor(root), '--spool', spoolDirOf(stateDir)];
  if (state.appliedRevision !== null) preset.push('--policy-revision', String(state.appliedRevision));
  return [...rest, ...preset, ...captureArgs(settings)];
}

// Builds an uploader for an enrolled endpoint (refreshing the capture settings at most once a minute).
export async function createUploader(
  stateDir: string,
  overrides: { intervalMs?: number; sealAfterMs?: number } = {},
): Promise<SpoolUploader> {
  const creds = await readCredentials(stateDir);
  if (!creds) throw new Error(`not enrolled: no credentials in ${stateDir} (run hookwarden-agent enroll)`);
  const client = await endpointClient(stateDir, creds, { userAgent: `hookwarden-agent/${AGENT_VERSION}` });
  let refreshedAt = 0;
  const refresh = async (): Promise<void> => {
    if (Date.now() - refreshedAt < 60_000) return;
    refreshedAt = Date.now();
    await refreshCaptureSettings(client, stateDir);
  };
  await refresh().catch(() => undefined);
  return new SpoolUploader({ spoolDir: spoolDirOf(stateDir), client, onRound: refresh, ...overrides });
}

// Adds the hooks and upload-runs commands.
export function registerHooksCommands(program: Command): void {
  program
    .command('hooks')
    .description(
      "run zerotwo-hooks with this endpoint's managed requirements, spool and capture policy " +
        '(accepts --root and --state-dir; every other argument goes to zerotwo-hooks)',
    )
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]', 'zerotwo-hooks arguments, e.g. dispatch PreToolUse')
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      process.exitCode = await runCli(await hooksArgv(cmd.args));
    });

  program
    .command('upload-runs')
    .description('upload the hook-run spool to the server (loop; --once drains it once)')
    .option('--state-dir <dir>', 'agent state directory', absoluteDir, defaultStateDir())
    .option('--once', 'upload what is spooled now and exit (exit 1 when the server refused)')
    .option('--interval-ms <ms>', 'pause between rounds', '2000')
    .action(async (opts: { stateDir: string; once?: boolean; intervalMs: string }) => {
      const uploader = await createUploader(opts.stateDir, {
        intervalMs: Number(opts.intervalMs),
        sealAfterMs: opts.once ? 0 : undefined,
      });
      if (opts.once) {
        const n = await uploader.uploadOnce();
        log('info', 'upload-runs --once finished', { records: n, ...uploader.current });
        return;
      }
      const stop = (): void => uploader.stop();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await uploader.run();
    });
}
