// The hookwarden-agent command line (commander).
import { Command } from 'commander';
import { AGENT_VERSION } from '../version';

// Builds the CLI program; commands are registered by their feature modules.
export function buildProgram(): Command {
  const program = new Command('hookwarden-agent')
    .description(
      'Hookwarden endpoint agent: enrolls this machine, keeps its managed ZeroCode hooks layer in sync and uploads hook-run records.',
    )
    .version(AGENT_VERSION, '-V, --version', 'print the agent version')
    .showHelpAfterError()
    .exitOverride();
  return program;
}
