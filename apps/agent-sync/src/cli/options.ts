// Shared CLI option defaults.
import path from 'node:path';
import type { Command } from 'commander';

// The default state directory for the platform (%ProgramData%\Hookwarden\agent on Windows).
export function defaultStateDir(
  platform: NodeJS.Platform = process.platform,
  env: Record<string, string | undefined> = process.env,
): string {
  if (platform === 'win32')
    return path.win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'Hookwarden', 'agent');
  if (platform === 'darwin') return '/Library/Application Support/Hookwarden/agent';
  return '/var/lib/hookwarden-agent';
}

/**
 * The default `--root`: no prefix, the machine's own system paths. Kept as `/` on every platform: on Windows
 * `path.resolve('/')` is the root of the *current* drive (D:\ when the working directory is on D:), while the
 * system paths (%ProgramData%, windows_managed_dir) carry their own drive.
 */
export const SYSTEM_ROOT = '/';

// Resolves a directory option against the working directory (a relative --root would make managed_dir and the
// requirements link point somewhere else once read from another directory); `/` stays the system root.
export function absoluteDir(value: string): string {
  return value === SYSTEM_ROOT ? SYSTEM_ROOT : path.resolve(value);
}

// Adds the location options every agent command shares (state directory and system-path prefix), made absolute.
export function withLocationOptions(command: Command): Command {
  return command
    .option('--state-dir <dir>', 'agent state directory', absoluteDir, defaultStateDir())
    .option('--root <dir>', 'prefix for system paths (tests, containers)', absoluteDir, SYSTEM_ROOT);
}
