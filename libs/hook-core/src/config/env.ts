// Injectable filesystem/platform/env and the default locations of every layer.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The filesystem operations discovery needs (sync: a handful of small files). */
export interface DiscoveryFs {
  /** File contents, or undefined when it does not exist; throws on other errors (e.g. permission). */
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
}

/** Node's filesystem. */
export const nodeFs: DiscoveryFs = {
  readFile(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw e;
    }
  },
  exists: (path) => existsSync(path),
};

/** Path functions for a platform. */
export type PathApi = typeof posix;

// Path API matching the target platform.
export function pathApiFor(platform: NodeJS.Platform): PathApi {
  return platform === 'win32' ? win32 : posix;
}

export interface LocationInput {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** ZeroTwo home (user layer); default `$ZEROTWO_HOME`, else `<OS home>/.zerotwo`. */
  home?: string;
  /** The OS user's home directory (default from env/os). */
  homeDir?: string;
  systemDir?: string;
  requirementsPath?: string;
}

export interface Locations {
  userDir: string;
  systemDir: string;
  requirementsPath: string;
  osHome: string;
}

// Resolves every default location for the platform, honouring overrides.
export function resolveLocations(input: LocationInput): Locations {
  const p = pathApiFor(input.platform);
  const osHome =
    input.homeDir ?? (input.platform === 'win32' ? input.env['USERPROFILE'] : input.env['HOME']) ?? homedir();
  const userDir = input.home ?? input.env['ZEROTWO_HOME'] ?? p.join(osHome, '.zerotwo');
  const programData = input.env['ProgramData'] ?? input.env['PROGRAMDATA'] ?? 'C:\\ProgramData';
  const systemDir = input.systemDir ?? (input.platform === 'win32' ? p.join(programData, 'ZeroTwo') : '/etc/zerotwo');
  const requirementsPath =
    input.requirementsPath ??
    (input.platform === 'win32'
      ? p.join(programData, 'ZeroTwo', 'requirements.toml')
      : '/etc/zerotwo/requirements.toml');
  return { userDir, systemDir, requirementsPath, osHome };
}

// Git root containing `start` (walks up to a directory holding `.git`), or undefined.
export function findGitRoot(start: string, fs: DiscoveryFs, p: PathApi): string | undefined {
  let dir = p.resolve(start);
  for (;;) {
    if (fs.exists(p.join(dir, '.git'))) return dir;
    const up = p.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
