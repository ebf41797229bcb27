// `hookwarden-agent hooks <zerotwo-hooks arguments>`: hook-core's CLI with this endpoint's managed requirements,
// spool, policy revision and admin-governed capture policy preset; `upload-runs`: drain the spool to the server.
import type { Command } from 'commander';
import { log } from '../log';
import { readCredentials } from '../state/credentials';
import { endpointClient } from '../client/identity';
import { AGENT_VERSION } from '../version';
import { refreshCaptureSettings } from '../spool/capture-settings';
import { SpoolUploader } from '../spool/uploader';
import { absoluteDir, defaultStateDir } from './options';
import { runHooks, spoolDirOf } from './hooks-run';

export { hooksArgv, spoolDirOf } from './hooks-run';

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
      process.exitCode = await runHooks(cmd.args);
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
