// Shared CLI option defaults.
import path from 'node:path';

// The default state directory for the platform.
export function defaultStateDir(): string {
  if (process.platform === 'win32')
    return path.join(process.env.ProgramData ?? 'C:\\ProgramData', 'Hookwarden', 'agent');
  if (process.platform === 'darwin') return '/Library/Application Support/Hookwarden/agent';
  return '/var/lib/hookwarden-agent';
}
