// The content rules of a policy version / bundle: managed file names, sizes and modes, and where managed_dir may be.
// One implementation: the API refuses at authoring what an agent would refuse at verification, and vice versa.
import { parse as parseToml } from 'smol-toml';
import type { DocPath } from '../config/diagnostics';
import { SHADOW_DIR_NAME, SHADOW_MANAGED_NAME, SHADOW_RELEASE_FILE } from '../config/shadow-dir';

/** Most managed files in one version. */
export const MAX_BUNDLE_FILES = 200;
/** Largest managed file (bytes). */
export const MAX_BUNDLE_FILE_BYTES = 1024 * 1024;
/** Largest total of all managed files (bytes). */
export const MAX_BUNDLE_TOTAL_BYTES = 16 * 1024 * 1024;
/** Largest requirements.toml (bytes). */
export const MAX_REQUIREMENTS_BYTES = 1024 * 1024;
/** Longest managed file path relative to managed_dir (UTF-8 bytes): keeps staging paths under macOS's 1024. */
export const MAX_FILE_PATH_BYTES = 512;
/** Longest path segment (UTF-8 bytes): NAME_MAX of Linux, macOS and Windows file systems. */
export const MAX_SEGMENT_BYTES = 255;
/** Deepest managed file path (segments). */
export const MAX_FILE_PATH_DEPTH = 32;
/** Longest managed_dir (UTF-8 bytes). */
export const MAX_MANAGED_DIR_BYTES = 256;

/** The platforms a bundle is applied on: `posix` reads `managed_dir`, `win32` reads `windows_managed_dir`. */
export type ManagedPlatform = 'posix' | 'win32';

/**
 * The layer a bundle is for: `managed` (the enforced layer, requirements.toml in the system config directory) or
 * `shadow` (observe mode, everything inside `<system config directory>/shadow/`). A managed bundle may never put
 * managed_dir into the shadow directory, and a shadow bundle may put it nowhere else.
 */
export type BundleLayer = 'managed' | 'shadow';

/** Where the agent and the engine keep their own files: managed_dir may not be, contain or enter these. */
export interface ManagedLocations {
  /** The system config directory (holds requirements.toml and the agent's layer). */
  systemDirs: readonly string[];
  /** The agent's state directories (credentials, last good bundle, spool). */
  stateDirs: readonly string[];
}

/** The platforms' default locations (Linux and macOS share /etc/zerotwo; macOS resolves /etc to /private/etc). */
export const MANAGED_LOCATIONS: Readonly<Record<ManagedPlatform, ManagedLocations>> = {
  posix: {
    systemDirs: ['/etc/zerotwo', '/private/etc/zerotwo'],
    stateDirs: ['/var/lib/hookwarden-agent', '/Library/Application Support/Hookwarden/agent'],
  },
  win32: { systemDirs: ['C:\\ProgramData\\ZeroTwo'], stateDirs: ['C:\\ProgramData\\Hookwarden\\agent'] },
};

/** Names inside the system config directory that belong to the engine or the agent (the shadow layer's included). */
const SYSTEM_DIR_RESERVED = ['requirements.toml', 'config.toml', 'hooks.json', 'hooks', 'plugins', SHADOW_DIR_NAME];
/** Names inside the shadow directory that belong to the agent (besides its `.`-names: the layer and staging). */
const SHADOW_DIR_RESERVED = ['requirements.toml', SHADOW_RELEASE_FILE];

/** Where a shadow version's managed_dir (and windows_managed_dir) point: inside the platforms' shadow directory. */
export const SHADOW_MANAGED_DIRS: Readonly<Record<ManagedPlatform, string>> = {
  posix: `/etc/zerotwo/${SHADOW_DIR_NAME}/${SHADOW_MANAGED_NAME}`,
  win32: `C:\\ProgramData\\ZeroTwo\\${SHADOW_DIR_NAME}\\${SHADOW_MANAGED_NAME}`,
};

/** Directories managed_dir may not be, nor contain (replacing them with a link would break the machine). */
const POSIX_SYSTEM_TREES = [
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/usr',
  '/usr/bin',
  '/usr/sbin',
  '/usr/lib',
  '/usr/lib64',
  '/usr/libexec',
  '/usr/local',
  '/usr/local/bin',
  '/usr/local/sbin',
  '/usr/local/lib',
  '/usr/share',
  '/usr/include',
  '/etc',
  '/var',
  '/var/lib',
  '/var/log',
  '/var/run',
  '/var/cache',
  '/var/db',
  '/opt',
  '/home',
  '/root',
  '/Users',
  '/System',
  '/System/Library',
  '/Library',
  '/Applications',
  '/Volumes',
  '/private',
  '/private/etc',
  '/private/var',
  '/boot',
  '/srv',
  '/mnt',
  '/media',
  '/snap',
];
/** Trees managed_dir may never enter: virtual file systems, and world-writable ones where any user could plant a path. */
const POSIX_FORBIDDEN_TREES = ['/proc', '/sys', '/dev', '/run', '/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp'];

/** One problem with a version's content, located in the policy (`['hooks', 'managed_dir']`) or the files list. */
export interface ContentProblem {
  code: string;
  message: string;
  /** `['hooks', 'managed_dir' | 'windows_managed_dir']` or `['files', index, 'path' | 'mode' | 'content']`. */
  where: DocPath;
}

/** A managed file as far as the content rules see it. */
export interface ContentFile {
  path: string;
  size: number;
  mode: number;
}

/** Input of checkBundleContent: the policy's managed directories, its files, the requirements size. */
export interface BundleContentInput {
  /** `[hooks] managed_dir` as written (any type: a non-string is reported). */
  managedDir?: unknown;
  /** `[hooks] windows_managed_dir` as written. */
  windowsManagedDir?: unknown;
  files: readonly ContentFile[];
  /** Size of the requirements.toml that ships (bytes), when known. */
  requirementsBytes?: number;
}

/** Options of checkBundleContent. */
export interface BundleContentOptions {
  /** Locations per platform (default MANAGED_LOCATIONS); the agent adds its real state directory. */
  locations?: Partial<Record<ManagedPlatform, ManagedLocations>>;
  /** The layer the content is for (default `managed`). */
  layer?: BundleLayer;
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

// True for a lone UTF-16 surrogate (not representable in a file name).
function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

// Control characters: C0, DEL, C1, and the Unicode line/paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// Characters Windows does not allow in a name (also `\` and `/`, handled as separators).
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;
// Windows device names, with or without an extension.
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

// Describes a character for a message (`U+000A`).
function describeChar(s: string, re: RegExp): string {
  const m = re.exec(s);
  const c = m?.[0] ?? '';
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The key under which two file paths collide on a case-insensitive, normalization-insensitive file system. */
export function foldFilePath(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/** Why a managed file path is unsafe or non-portable, or null when it is a clean relative path inside managed_dir. */
export function filePathProblem(p: string): { code: string; message: string } | null {
  const bad = (message: string): { code: string; message: string } => ({ code: 'unsafe_file_path', message });
  if (p === '') return bad('empty path');
  if (hasLoneSurrogate(p)) return bad('is not well-formed Unicode');
  if (CONTROL.test(p)) return bad(`contains the control character ${describeChar(p, CONTROL)}`);
  if (p.includes('\\')) return bad('contains a backslash (use / separators)');
  if (p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:/.test(p)) return bad('must be relative to managed_dir');
  const bytes = utf8Bytes(p);
  if (bytes > MAX_FILE_PATH_BYTES) return bad(`is ${bytes} bytes long; the limit is ${MAX_FILE_PATH_BYTES}`);
  const segments = p.split('/');
  if (segments.length > MAX_FILE_PATH_DEPTH)
    return bad(`is ${segments.length} levels deep; the limit is ${MAX_FILE_PATH_DEPTH}`);
  for (const s of segments) {
    if (s === '') return bad('contains an empty segment (// or a trailing /)');
    if (s === '..') return bad('contains `..` and could escape managed_dir');
    if (s === '.') return bad('contains a `.` segment (write the path without it)');
    const len = utf8Bytes(s);
    if (len > MAX_SEGMENT_BYTES) return bad(`has a ${len}-byte segment; the limit is ${MAX_SEGMENT_BYTES} bytes`);
    if (WINDOWS_FORBIDDEN.test(s)) return bad(`segment ${JSON.stringify(s)} has a character Windows forbids (<>:"|?*)`);
    if (/[. ]$/.test(s)) return bad(`segment ${JSON.stringify(s)} ends with a dot or space (not portable to Windows)`);
    if (WINDOWS_DEVICE.test(s)) return bad(`segment ${JSON.stringify(s)} is a Windows device name`);
  }
  return null;
}

/** Why a file mode cannot ship, or null: permission bits only, readable by its owner, writable by nobody else. */
export function fileModeProblem(mode: number): { code: string; message: string } | null {
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777)
    return { code: 'invalid_file_mode', message: `mode must be permission bits from 0 to 0o777, got ${mode}` };
  if ((mode & 0o400) === 0)
    return { code: 'invalid_file_mode', message: `mode ${mode.toString(8)} is not readable by its owner` };
  if ((mode & 0o022) !== 0) {
    return {
      code: 'invalid_file_mode',
      message: `mode ${mode.toString(8)} lets group or others write a managed file (anyone could change a managed hook)`,
    };
  }
  return null;
}

// Splits a POSIX absolute path into segments; null when it is not normalized (//, /./, /../, trailing /).
function posixSegments(dir: string): string[] | null {
  const parts = dir.split('/').slice(1);
  if (parts.some((s) => s === '' || s === '.' || s === '..')) return null;
  return parts;
}

// Segments of a Windows absolute path (drive or UNC), lower-cased; null when it is not normalized.
function windowsSegments(dir: string): string[] | null {
  const d = dir.replace(/\//g, '\\');
  let head: string;
  let rest: string;
  const drive = /^([A-Za-z]:)\\(.*)$/.exec(d);
  const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\(.*))?$/.exec(d);
  if (drive) {
    head = drive[1]!.toLowerCase();
    rest = drive[2]!;
  } else if (unc) {
    head = `\\\\${unc[1]!.toLowerCase()}\\${unc[2]!.toLowerCase()}`;
    rest = unc[3] ?? '';
  } else return null;
  const parts = rest === '' ? [] : rest.split('\\');
  if (parts.some((s) => s === '' || s === '.' || s === '..')) return null;
  return [head, ...parts.map((s) => s.toLowerCase())];
}

// a is b or an ancestor of b (segment-wise).
function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((s, i) => s === b[i]);
}

/** Why a managed directory is not acceptable for the platform, or null when it is. */
export function managedDirProblem(
  dir: unknown,
  platform: ManagedPlatform,
  locations: ManagedLocations = MANAGED_LOCATIONS[platform],
  layer: BundleLayer = 'managed',
): { code: string; message: string } | null {
  const key = platform === 'win32' ? 'windows_managed_dir' : 'managed_dir';
  const bad = (message: string, code = 'invalid_managed_dir'): { code: string; message: string } => ({
    code,
    message: `${key} ${message}`,
  });
  if (typeof dir !== 'string') return bad('must be a string');
  const shown = JSON.stringify(dir);
  if (dir === '') return bad('must not be empty');
  if (hasLoneSurrogate(dir)) return bad(`${shown} is not well-formed Unicode`);
  if (CONTROL.test(dir)) return bad(`${shown} contains the control character ${describeChar(dir, CONTROL)}`);
  const bytes = utf8Bytes(dir);
  if (bytes > MAX_MANAGED_DIR_BYTES) return bad(`is ${bytes} bytes long; the limit is ${MAX_MANAGED_DIR_BYTES}`);
  if (platform === 'posix') {
    if (dir.startsWith('~')) {
      return bad(
        `${shown} is relative to a home directory, but the managed layer is system-wide: the agent writes it once ` +
          'for every user of the machine, so ~ has no single meaning. Use an absolute path such as /opt/zerotwo/hooks',
        'managed_dir_home_relative',
      );
    }
    if (!dir.startsWith('/')) return bad(`must be an absolute path, got ${shown}`, 'managed_dir_not_absolute');
    if (/^\/+$/.test(dir))
      return bad('must not be / (the agent would replace the root directory)', 'managed_dir_overlap');
    if (dir.includes('\\')) return bad(`${shown} contains a backslash`);
    const segs = posixSegments(dir);
    if (!segs) return bad(`${shown} is not a normalized path (no //, /./, /../ or trailing /)`);
    if (segs.some((s) => utf8Bytes(s) > MAX_SEGMENT_BYTES))
      return bad(`${shown} has a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
    const tree = (t: string): string[] => t.split('/').slice(1);
    for (const t of POSIX_FORBIDDEN_TREES) {
      if (isPrefix(tree(t), segs))
        return bad(`${shown} is inside ${t}, which is virtual or writable by every user`, 'managed_dir_overlap');
    }
    if (segs.length === 2 && (segs[0] === 'home' || segs[0] === 'Users'))
      return bad(`${shown} is a user's home directory`, 'managed_dir_overlap');
    for (const t of POSIX_SYSTEM_TREES) {
      if (isPrefix(segs, tree(t)))
        return bad(`${shown} is (or contains) the system directory ${t}`, 'managed_dir_overlap');
    }
    return overlapProblem(segs, shown, locations, (p) => posixSegments(p) ?? [], bad, layer);
  }
  if (dir.startsWith('~') || dir.startsWith('%'))
    return bad(`${shown} must be an absolute path without variables; the managed layer is system-wide`);
  if (!/^[A-Za-z]:[\\/]/.test(dir) && !/^\\\\[^\\]+\\[^\\]+/.test(dir))
    return bad(
      `must be an absolute Windows path (C:\\... or \\\\server\\share), got ${shown}`,
      'windows_managed_dir_not_absolute',
    );
  const segs = windowsSegments(dir);
  if (!segs) return bad(`must be a normalized absolute Windows path (no empty, . or .. segments), got ${shown}`);
  if (segs.length === 1 && /^[a-z]:$/.test(segs[0]!)) return bad('must not be a drive root', 'managed_dir_overlap');
  if (segs.slice(1).some((s) => WINDOWS_FORBIDDEN.test(s) || /[. ]$/.test(s) || WINDOWS_DEVICE.test(s)))
    return bad(`${shown} has a segment Windows does not allow`);
  for (const t of ['c:\\windows', 'c:\\program files', 'c:\\program files (x86)', 'c:\\programdata', 'c:\\users']) {
    const ts = windowsSegments(t)!;
    if (isPrefix(segs, ts)) return bad(`${shown} is (or contains) the system directory ${t}`, 'managed_dir_overlap');
  }
  if (isPrefix(windowsSegments('c:\\windows')!, segs))
    return bad(`${shown} is inside C:\\Windows`, 'managed_dir_overlap');
  return overlapProblem(segs, shown, locations, (p) => windowsSegments(p) ?? [], bad, layer);
}

// A shadow bundle's managed_dir: inside `<system config directory>/shadow/`, not one of the agent's own names there.
function shadowPlacementProblem(
  segs: string[],
  shown: string,
  locations: ManagedLocations,
  split: (p: string) => string[],
  bad: (message: string, code?: string) => { code: string; message: string },
): { code: string; message: string } | null {
  for (const sys of locations.systemDirs) {
    const s = split(sys);
    if (s.length === 0 || !isPrefix([...s, SHADOW_DIR_NAME], segs)) continue;
    const first = segs[s.length + 1];
    if (first === undefined)
      return bad(`${shown} is the shadow directory itself; a shadow version's files go below it`, 'shadow_managed_dir');
    if (first.startsWith('.') || SHADOW_DIR_RESERVED.includes(first.toLowerCase()))
      return bad(`${shown} would replace ${first}, which belongs to the agent's shadow layer`, 'shadow_managed_dir');
    return null;
  }
  return bad(
    `${shown} is outside the shadow directory (${locations.systemDirs.map((d) => `${d}${d.includes('\\') ? '\\' : '/'}${SHADOW_DIR_NAME}`).join(', ')}): ` +
      'a shadow release never changes the enforced layer',
    'shadow_managed_dir',
  );
}

// managed_dir against the system config and agent state directories.
function overlapProblem(
  segs: string[],
  shown: string,
  locations: ManagedLocations,
  split: (p: string) => string[],
  bad: (message: string, code?: string) => { code: string; message: string },
  layer: BundleLayer,
): { code: string; message: string } | null {
  if (layer === 'shadow') return shadowPlacementProblem(segs, shown, locations, split, bad);
  for (const sys of locations.systemDirs) {
    const s = split(sys);
    if (s.length === 0) continue;
    if (isPrefix(segs, s)) {
      return bad(
        `${shown} is (or contains) the system config directory ${sys}, where the agent keeps requirements.toml and its layer`,
        'managed_dir_overlap',
      );
    }
    if (isPrefix(s, segs)) {
      const first = segs[s.length]!;
      if (first.startsWith('.') || SYSTEM_DIR_RESERVED.includes(first.toLowerCase())) {
        return bad(
          `${shown} would replace ${first} in the system config directory ${sys}, which belongs to the engine or the agent (its layer, staging and state)`,
          'managed_dir_overlap',
        );
      }
    }
  }
  for (const state of locations.stateDirs) {
    const s = split(state);
    if (s.length > 0 && (isPrefix(segs, s) || isPrefix(s, segs)))
      return bad(`${shown} overlaps the agent's state directory ${state}`, 'managed_dir_overlap');
  }
  return null;
}

/** Checks a version's content against every rule an agent applies before writing; returns located problems. */
export function checkBundleContent(input: BundleContentInput, options: BundleContentOptions = {}): ContentProblem[] {
  const problems: ContentProblem[] = [];
  const dirs: Array<[ManagedPlatform, unknown, string]> = [
    ['posix', input.managedDir, 'managed_dir'],
    ['win32', input.windowsManagedDir, 'windows_managed_dir'],
  ];
  for (const [platform, dir, key] of dirs) {
    if (dir === undefined) continue;
    const p = managedDirProblem(
      dir,
      platform,
      options.locations?.[platform] ?? MANAGED_LOCATIONS[platform],
      options.layer ?? 'managed',
    );
    if (p) problems.push({ ...p, where: ['hooks', key] });
  }
  if (input.requirementsBytes !== undefined && input.requirementsBytes > MAX_REQUIREMENTS_BYTES) {
    problems.push({
      code: 'requirements_too_large',
      message: `requirements.toml is ${input.requirementsBytes} bytes; the limit is ${MAX_REQUIREMENTS_BYTES}`,
      where: [],
    });
  }
  const files = input.files;
  if (files.length > 0 && input.managedDir === undefined && input.windowsManagedDir === undefined) {
    problems.push({
      code: 'files_without_managed_dir',
      message: 'the version ships managed files but [hooks] sets neither managed_dir nor windows_managed_dir',
      where: ['files'],
    });
  }
  if (files.length > MAX_BUNDLE_FILES) {
    problems.push({
      code: 'too_many_files',
      message: `${files.length} files; the limit is ${MAX_BUNDLE_FILES}`,
      where: ['files'],
    });
  }
  let total = 0;
  const folded = new Map<string, number>();
  const clean: Array<{ i: number; key: string }> = [];
  files.forEach((f, i) => {
    const bad = filePathProblem(f.path);
    if (bad)
      problems.push({ ...bad, message: `file ${JSON.stringify(f.path)}: ${bad.message}`, where: ['files', i, 'path'] });
    else {
      const key = foldFilePath(f.path);
      const first = folded.get(key);
      if (first !== undefined) {
        const same = files[first]!.path === f.path;
        problems.push({
          code: 'duplicate_file_path',
          message: same
            ? `file ${JSON.stringify(f.path)} is also files[${first}]`
            : `file ${JSON.stringify(f.path)} and files[${first}] ${JSON.stringify(files[first]!.path)} differ only in case or Unicode normalization (the same file on macOS and Windows)`,
          where: ['files', i, 'path'],
        });
      } else {
        folded.set(key, i);
        clean.push({ i, key });
      }
    }
    const mode = fileModeProblem(f.mode);
    if (mode)
      problems.push({
        ...mode,
        message: `file ${JSON.stringify(f.path)}: ${mode.message}`,
        where: ['files', i, 'mode'],
      });
    if (!Number.isInteger(f.size) || f.size < 0 || f.size > MAX_BUNDLE_FILE_BYTES) {
      problems.push({
        code: 'file_too_large',
        message: `file is ${f.size} bytes; the limit is ${MAX_BUNDLE_FILE_BYTES}`,
        where: ['files', i, 'content'],
      });
    } else total += f.size;
  });
  if (total > MAX_BUNDLE_TOTAL_BYTES) {
    problems.push({
      code: 'files_too_large',
      message: `the files total ${total} bytes; the limit is ${MAX_BUNDLE_TOTAL_BYTES}`,
      where: ['files'],
    });
  }
  // A file whose parent directory is also a file (x and x/y.sh) cannot be written.
  for (const { i, key } of clean) {
    const parts = key.split('/');
    for (let n = 1; n < parts.length; n++) {
      const parent = folded.get(parts.slice(0, n).join('/'));
      if (parent !== undefined) {
        problems.push({
          code: 'file_directory_conflict',
          message: `file ${JSON.stringify(files[i]!.path)} needs ${JSON.stringify(files[parent]!.path)} (files[${parent}]) to be a directory, but it is a file`,
          where: ['files', i, 'path'],
        });
        break;
      }
    }
  }
  return problems;
}

/** checkBundleContent of a bundle as shipped: the requirements.toml text (its [hooks] directories) and the files. */
export function checkBundleText(
  requirementsToml: string,
  files: readonly ContentFile[],
  options: BundleContentOptions = {},
): ContentProblem[] {
  let hooks: unknown;
  try {
    hooks = (parseToml(requirementsToml) as { hooks?: unknown }).hooks;
  } catch (err) {
    return [{ code: 'toml_syntax', message: err instanceof Error ? err.message : String(err), where: [] }];
  }
  const table =
    typeof hooks === 'object' && hooks !== null && !Array.isArray(hooks) ? (hooks as Record<string, unknown>) : {};
  return checkBundleContent(
    {
      managedDir: table['managed_dir'],
      windowsManagedDir: table['windows_managed_dir'],
      files,
      requirementsBytes: Buffer.byteLength(requirementsToml, 'utf8'),
    },
    options,
  );
}
