#!/usr/bin/env node
// hookwarden-agent entry point (also the entry of its startup snapshot and single executable).
import { startCli, warmUpCli } from '@hookwarden/hook-core/cli';

// The program with every command, loaded on demand: a hook event (`hooks …`) needs none of it.
function program(): typeof import('./program') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./program') as typeof import('./program');
}

// The hook path alone (cli/hooks-run.ts).
function hooksRun(): typeof import('./hooks-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./hooks-run') as typeof import('./hooks-run');
}

// Whether commander would take an argument after `hooks` as the program's own version flag (options are found
// anywhere on the line up to `--`): then the program handles the line, as it always did.
function versionFlagIn(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a.startsWith('--version') || /^-[^-]*V/.test(a)) return true;
  }
  return false;
}

/**
 * V8 flags of the daemon (`run` without --once, which idles on its long poll for days): footprint over peak speed.
 * The young generation keeps its initial size (a start-up burst grows it to 8 MB, returned only by the memory reducer
 * seconds later) and code is not optimised by TurboFan (its code and zones stay unloaded); the daemon's heavy work is
 * native (hashing, signatures, JSON, I/O). Tiering and growth flags are read when used, so setting them before the
 * program is built takes effect (bench/agent, issue 24). scripts/run-bin.cjs sets the same before it compiles the
 * bundle: V8 rejects a code cache made under other flags.
 */
export const DAEMON_V8_FLAGS = '--max-opt=1 --semi-space-growth-factor=1';

// Sets DAEMON_V8_FLAGS when the command line starts the daemon.
function tuneForDaemon(args: readonly string[]): void {
  if (args[0] !== 'run' || args.includes('--once')) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('node:v8') as typeof import('node:v8')).setFlagsFromString(DAEMON_V8_FLAGS);
}

// Runs one command line (the arguments after the executable); resolves with the exit code.
async function main(args: string[]): Promise<number> {
  try {
    tuneForDaemon(args);
    // The program's `hooks` command passes every argument after it on as well (no option of its own, no help).
    if (args[0] === 'hooks' && !versionFlagIn(args)) {
      process.exitCode = await hooksRun().runHooks(args.slice(1));
      return 0;
    }
    await program().buildProgram().parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    // commander is loaded here, not at start: the hook path never builds the program (nor throws its errors).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (err instanceof (require('commander') as typeof import('commander')).CommanderError) return err.exitCode;
    process.stderr.write(`hookwarden-agent: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

startCli(
  (args) => {
    void main(args).then((code) => {
      // A command may have set its own exit code (e.g. run --once: 3 for a refused bundle).
      if (code !== 0 || process.exitCode === undefined) process.exitCode = code || process.exitCode;
    });
  },
  // The snapshot holds the hook path only (every hook event starts from it); the daemon and the other commands load
  // the program when they start.
  () => {
    warmUpCli();
    hooksRun();
  },
);
