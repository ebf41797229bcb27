#!/usr/bin/env node
// hookwarden-agent entry point.
import { CommanderError } from 'commander';
import { buildProgram } from './program';

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`hookwarden-agent: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

void main(process.argv).then((code) => {
  // A command may have set its own exit code (e.g. run --once: 3 for a refused bundle).
  if (code !== 0 || process.exitCode === undefined) process.exitCode = code || process.exitCode;
});
