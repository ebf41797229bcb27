// The hookwarden-agent command line (commander): one register…Command(program) call per command file.
import { Command } from 'commander';
import { AGENT_VERSION } from '../version';
import { registerEnrollCommand } from './enroll';
import { registerHooksCommands } from './hooks-command';
import { registerInventoryCommand } from './inventory';
import { registerRunCommand } from './run';
import { registerStatusCommand } from './status';

// Builds the CLI program; commands are registered by their feature modules.
export function buildProgram(): Command {
  const program = new Command('hookwarden-agent')
    .description(
      'Hookwarden endpoint agent: enrolls this machine, keeps its managed ZeroCode hooks layer in sync and uploads hook-run records.',
    )
    .version(AGENT_VERSION, '-V, --version', 'print the agent version')
    .showHelpAfterError()
    .exitOverride();
  registerEnrollCommand(program);
  registerRunCommand(program);
  registerStatusCommand(program);
  registerHooksCommands(program);
  registerInventoryCommand(program);
  return program;
}
