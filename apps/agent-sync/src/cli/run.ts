// `hookwarden-agent run`: keeps the managed layer in sync with the server (daemon, or --once).
import type { Command } from 'commander';
import { ApiHttpError, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from '../client/api-client';
import { log } from '../log';
import { acquireStateLock } from '../state/lock';
import { Syncer } from '../sync/syncer';
import { createUploader } from './hooks-command';
import { withLocationOptions } from './options';
import { type InventoryOptions, withInventoryOptions } from './inventory';
import { resolveHomes } from '../inventory/homes';
import { InventoryReporter } from '../inventory/reporter';
import { endpointClient } from '../client/identity';
import { readCredentials } from '../state/credentials';
import { AGENT_VERSION } from '../version';
import type { SpoolUploader } from '../spool/uploader';

interface RunOptions extends InventoryOptions {
  inventoryInterval: string;
  inventory: boolean;
  stateDir: string;
  root: string;
  once?: boolean;
  pollWait: string;
  driftInterval: string;
  maxBackoff: string;
  maxResponseBytes: string;
  bodyTimeout: string;
  maxStatementAge: string;
}

// Parses a non-negative integer option or throws naming it.
function int(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name}: expected an integer 0..${max}, got ${value}`);
  return n;
}

// Adds the run command.
export function registerRunCommand(program: Command): void {
  withInventoryOptions(
    withLocationOptions(
      program
        .command('run')
        .description('long-poll the signed bundle, apply it atomically, repair drift and report status'),
    ),
  )
    .option(
      '--inventory-interval <sec>',
      'seconds between hook-inventory checks (reported when changed, else hourly)',
      '60',
    )
    .option('--no-inventory', 'do not report the hook inventory')
    .option('--once', 'fetch and apply once, report, and exit (exit 3 when the bundle is refused)')
    .option('--poll-wait <sec>', 'long-poll wait asked of the server (max 60)', '30')
    .option('--drift-interval <sec>', 'seconds between on-disk drift checks', '300')
    .option('--max-backoff <ms>', 'cap of the retry backoff on errors and refused bundles', '60000')
    .option(
      '--max-response-bytes <n>',
      'largest response body read from the server (bundle, key list, any answer)',
      String(DEFAULT_MAX_BODY_BYTES),
    )
    .option(
      '--body-timeout <ms>',
      'deadline of a response body once its headers arrived',
      String(DEFAULT_BODY_TIMEOUT_MS),
    )
    .option(
      '--max-statement-age <sec>',
      'refuse signed key lists and assignments issued longer ago than this (replays)',
      '86400',
    )
    .action(async (opts: RunOptions) => {
      // One agent per state directory (a second `run` would race the first over the layer and the spool).
      const lock = await acquireStateLock(opts.stateDir, opts.once ? 'run --once' : 'run');
      try {
        await runWithLock(opts);
      } finally {
        await lock.release();
      }
    });
}

// The run command's body, once the state directory's lock is held.
async function runWithLock(opts: RunOptions): Promise<void> {
  let uploader: SpoolUploader | null = null;
  const syncer = new Syncer({
    counters: () => uploader?.current ?? { uploadsPending: 0, recordsDropped: 0 },
    stateDir: opts.stateDir,
    root: opts.root,
    pollWaitSec: int('--poll-wait', opts.pollWait, 60),
    driftIntervalSec: Math.max(1, int('--drift-interval', opts.driftInterval, 86_400)),
    maxBackoffMs: Math.max(100, int('--max-backoff', opts.maxBackoff, 3_600_000)),
    maxResponseBytes: Math.max(1024, int('--max-response-bytes', opts.maxResponseBytes, 2 ** 31)),
    bodyTimeoutMs: Math.max(100, int('--body-timeout', opts.bodyTimeout, 3_600_000)),
    maxStatementAgeMs: Math.max(60, int('--max-statement-age', opts.maxStatementAge, 366 * 86_400)) * 1000,
    stepDelayMs: process.env.HOOKWARDEN_AGENT_TEST_STEP_DELAY_MS
      ? Number(process.env.HOOKWARDEN_AGENT_TEST_STEP_DELAY_MS)
      : 0,
  });
  await syncer.init();
  if (opts.once) {
    let outcome;
    let shadow;
    try {
      outcome = await syncer.pollOnce(0);
      shadow = await syncer.pollShadowOnce();
    } catch (err) {
      // A pending endpoint is not an error of the agent: it waits for an admin (exit 4).
      if (!(err instanceof ApiHttpError && err.code === 'endpoint_pending')) throw err;
      log('warn', 'awaiting approval: an admin must admit this endpoint', { error: err.message });
      process.exitCode = 4;
      return;
    } finally {
      await syncer.flushReport();
    }
    log('info', 'run --once finished', { outcome, shadow });
    if (outcome === 'refused') process.exitCode = 3;
    return;
  }
  // The hook-run uploader runs beside the sync loop (same credentials, its own backoff).
  uploader = await createUploader(opts.stateDir);
  let reporter: InventoryReporter | null = null;
  const creds = await readCredentials(opts.stateDir);
  if (opts.inventory && creds) {
    reporter = new InventoryReporter({
      client: await endpointClient(opts.stateDir, creds, { userAgent: `hookwarden-agent/${AGENT_VERSION}` }),
      stateDir: opts.stateDir,
      root: opts.root,
      homes: resolveHomes(opts.inventoryUsers, opts.inventoryHome),
      checkIntervalMs: Math.max(1, int('--inventory-interval', opts.inventoryInterval, 86_400)) * 1000,
    });
  }
  const stop = (): void => {
    syncer.stop();
    uploader?.stop();
    reporter?.stop();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  log('info', 'agent started', { pollWaitSec: Number(opts.pollWait) });
  await Promise.all([syncer.run(), uploader.run(), reporter?.run()]);
  log('info', 'agent stopped');
}
