#!/usr/bin/env node
// hookwarden-agent entry point (also the entry of its startup snapshot and single executable).
import { startCli, warmUpCli } from '@hookwarden/hook-core/cli';
import { daemonV8Flags } from './daemon-flags';

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

// Sets the daemon's V8 flags when the command line starts the daemon (./daemon-flags).
function tuneForDaemon(args: readonly string[]): void {
  const flags = daemonV8Flags(args);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (flags) (require('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);
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
