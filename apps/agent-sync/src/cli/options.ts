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

// Resolves a directory option against the working directory (a relative --root would make managed_dir and the
// requirements link point somewhere else once read from another directory).
export function absoluteDir(value: string): string {
  return path.resolve(value);
}

// Adds the location options every agent command shares (state directory and system-path prefix), made absolute.
export function withLocationOptions(command: Command): Command {
  return command
    .option('--state-dir <dir>', 'agent state directory', absoluteDir, defaultStateDir())
    .option('--root <dir>', 'prefix for system paths (tests, containers)', absoluteDir, '/');
}
