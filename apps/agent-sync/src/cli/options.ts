// Shared CLI option defaults.
import path from 'node:path';
import type { Command } from 'commander';

// The default state directory for the platform.
export function defaultStateDir(): string {
  if (process.platform === 'win32')
    return path.join(process.env.ProgramData ?? 'C:\\ProgramData', 'Hookwarden', 'agent');
  if (process.platform === 'darwin') return '/Library/Application Support/Hookwarden/agent';
  return '/var/lib/hookwarden-agent';
}

// Adds the location options every agent command shares (state directory and system-path prefix).
export function withLocationOptions(command: Command): Command {
  return command
    .option('--state-dir <dir>', 'agent state directory', defaultStateDir())
    .option('--root <dir>', 'prefix for system paths (tests, containers)', '/');
}
