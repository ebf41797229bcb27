// Runs the hookwarden program and prints errors (message + located problems) without stack traces.
import { CommanderError } from 'commander';
import { CliError, formatProblem } from './errors';
import { CLI_VERSION } from '../version';
import { buildProgram, namesSubcommand } from './program';

// Runs the CLI; resolves to the exit code.
export async function main(argv: string[]): Promise<number> {
  const args = argv.slice(2);
  // `hookwarden --version` alone: what commander prints for it, without building the program.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${CLI_VERSION}\n`);
    return 0;
  }
  const program = buildProgram(!namesSubcommand(args), args);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help / --version exit 0; usage errors 1 (commander already printed them).
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help'
        ? 0
        : 1;
    }
    if (err instanceof CliError) {
      process.stderr.write(`hookwarden: ${err.message}\n`);
      for (const p of err.problems.slice(0, 100)) process.stderr.write(`  ${formatProblem(p)}\n`);
      if (err.problems.length > 100) process.stderr.write(`  … and ${err.problems.length - 100} more\n`);
      return err.exitCode;
    }
    process.stderr.write(`hookwarden: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
