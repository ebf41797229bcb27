// Injectable filesystem/platform/env and the default locations of every layer.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The filesystem operations discovery needs (sync: a handful of small files). */
export interface DiscoveryFs {
  /** File contents, or undefined when it does not exist; throws on other errors (e.g. permission). */
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
  /** Resolves symlinks (optional: used to keep plugin hook paths inside the plugin root). */
  realpath?(path: string): string | undefined;
}

/** Largest configuration file read (hooks.json, config.toml, requirements.toml, plugin manifests): 4 MiB. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** An error with a Node-style code, for refusals that are not system errors. */
function refusal(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

// Reads a regular file of at most MAX_CONFIG_FILE_BYTES; a FIFO, device or directory is refused (never blocks).
function readBoundedFile(path: string): string {
  if (!statSync(path).isFile()) throw refusal('ENOTREG', 'not a regular file');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refusal('ENOTREG', 'not a regular file');
    if (st.size > MAX_CONFIG_FILE_BYTES)
      throw refusal('EFBIG', `larger than ${MAX_CONFIG_FILE_BYTES} bytes (${st.size} bytes)`);
    // Read at most one byte past the limit: a file that grows while read is still bounded.
    const buf = Buffer.alloc(Math.min(st.size, MAX_CONFIG_FILE_BYTES) + 1);
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_CONFIG_FILE_BYTES) throw refusal('EFBIG', `larger than ${MAX_CONFIG_FILE_BYTES} bytes`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Node's filesystem (reads are bounded in size and never block on special files). */
export const nodeFs: DiscoveryFs = {
  readFile(path) {
    try {
      return readBoundedFile(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw e;
    }
  },
  exists: (path) => existsSync(path),
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
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
  // requirements.toml lives in the system directory (so overriding the system dir moves it too).
  const requirementsPath = input.requirementsPath ?? p.join(systemDir, 'requirements.toml');
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
