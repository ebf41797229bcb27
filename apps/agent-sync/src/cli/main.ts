#!/usr/bin/env node
// hookwarden-agent entry point (also the entry of its startup snapshot and single executable).
import { CommanderError } from 'commander';
import { startCli, warmUpCli } from '@hookwarden/hook-core/cli';
import { buildProgram } from './program';

// Runs one command line (the arguments after the executable); resolves with the exit code.
async function main(args: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
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
  () => {
    warmUpCli();
    buildProgram();
  },
);
