// Reads files and folders of one directory tree without leaving it: no symbolic link is followed (O_NOFOLLOW on the
// file, lstat on every folder on the way), the opened descriptor is checked to be a regular file, and the path it
// really opened must lie inside the tree's real path (checked on the descriptor itself where the OS allows it).
import { constants, type Dirent, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import type { Problem } from '../cli/errors';

/** A refusal naming the file (relative to the tree) and why; `code` is one of symlink / not_a_file / outside_dir. */
export class ContainedError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.file}: ${problem.message}`);
    this.name = 'ContainedError';
  }
}

/** One file read from the tree: its bytes and the descriptor's stat (mode bits, size). */
export interface ContainedFile {
  content: Buffer;
  stat: Stats;
}

// O_NOFOLLOW where the platform has it (not on Windows, where lstat beforehand is the check); O_NONBLOCK so that a
// FIFO planted in the tree cannot hang the open.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

// `rel` with forward slashes, for problems.
const slash = (rel: string) => rel.split(path.sep).join('/');

/** A directory tree that reads stay inside. */
export class ContainedDir {
  private constructor(
    /** The tree's real path (symbolic links in the path the user gave resolved once, up front). */
    readonly realRoot: string,
  ) {}

  // Opens the tree rooted at `dir` (which the user named, so a link there is resolved); null when it is no directory.
  static async open(dir: string): Promise<ContainedDir | null> {
    const real = await fs.realpath(path.resolve(dir)).catch(() => null);
    if (real === null) return null;
    const st = await fs.stat(real).catch(() => null);
    return st?.isDirectory() ? new ContainedDir(real) : null;
  }

  // Refuses a relative path that is absolute or climbs out (`..`) before touching the disk.
  private parts(rel: string): string[] {
    const parts = slash(rel)
      .split('/')
      .filter((p) => p !== '' && p !== '.');
    if (path.isAbsolute(rel) || parts.includes('..'))
      throw new ContainedError({
        file: slash(rel),
        message: 'is not a path inside the directory',
        code: 'outside_dir',
      });
    return parts;
  }

  // lstat of every folder from the root down to (excluding) the last part: false when one does not exist; a link
  // or a non-folder on the way is refused, naming that folder.
  private async foldersOnTheWay(parts: string[], count: number): Promise<boolean> {
    for (let i = 1; i <= count; i++) {
      const rel = parts.slice(0, i).join('/');
      const st = await fs.lstat(path.join(this.realRoot, ...parts.slice(0, i))).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
        throw err;
      });
      if (st === null) return false;
      if (st.isSymbolicLink())
        throw new ContainedError({
          file: rel,
          message:
            'is a symbolic link: every file and folder read must be inside the directory, links are not followed',
          code: 'symlink',
        });
      if (!st.isDirectory()) return false;
    }
    return true;
  }

  // The real path the descriptor opened (Linux: /proc/self/fd; elsewhere realpath of the path, checked against
  // the descriptor's device and inode so a swap in between is caught).
  private async openedPath(handle: fs.FileHandle, full: string, st: Stats): Promise<string | null> {
    if (process.platform === 'linux') {
      const viaProc = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
      if (viaProc !== null && path.isAbsolute(viaProc)) return viaProc;
    }
    const real = await fs.realpath(full).catch(() => null);
    if (real === null) return null;
    const again = await fs.stat(real).catch(() => null);
    return again && again.dev === st.dev && again.ino === st.ino ? real : null;
  }

  // True when `real` is the root or below it.
  private inside(real: string): boolean {
    const rel = path.relative(this.realRoot, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  }

  // Reads the regular file at `rel` (at most `maxBytes`); null when it does not exist. Throws ContainedError for a
  // link, a special file or anything resolving outside the tree, and a plain Error (with the path) for a size breach.
  async readFile(rel: string, maxBytes: number): Promise<ContainedFile | null> {
    const parts = this.parts(rel);
    const file = parts.join('/');
    if (parts.length === 0)
      throw new ContainedError({ file: '.', message: 'is not a regular file', code: 'not_a_file' });
    if (!(await this.foldersOnTheWay(parts, parts.length - 1))) return null;
    const full = path.join(this.realRoot, ...parts);
    const refuse = (message: string, code: string): never => {
      throw new ContainedError({ file, message, code });
    };
    if (!constants.O_NOFOLLOW) {
      const pre = await fs.lstat(full).catch(() => null);
      if (pre?.isSymbolicLink()) refuse('is a symbolic link: files read must be regular files', 'symlink');
    }
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(full, OPEN_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      if (code === 'ELOOP' || code === 'EMLINK')
        refuse('is a symbolic link: files read must be regular files', 'symlink');
      throw new Error(`${file}: cannot read: ${(err as Error).message}`);
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) refuse('is not a regular file', 'not_a_file');
      const real = await this.openedPath(handle, full, st);
      if (real === null || !this.inside(real)) refuse('resolves outside the directory: refused', 'outside_dir');
      if (st.size > maxBytes) throw new Error(`${file}: ${st.size} bytes; the limit is ${maxBytes}`);
      const buf = Buffer.alloc(st.size + 1);
      let read = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buf, read, buf.length - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
        if (read > maxBytes) throw new Error(`${file}: grew beyond ${maxBytes} bytes while being read`);
        if (read === buf.length) throw new Error(`${file}: changed while being read`);
      }
      return { content: buf.subarray(0, read), stat: st };
    } finally {
      await handle.close();
    }
  }

  // Lists the folder at `rel` ('' for the root); null when it does not exist. A link (the folder itself or any
  // folder on the way) is refused; a folder resolving outside the tree is refused.
  async readDir(rel: string): Promise<Dirent[] | null> {
    const parts = this.parts(rel);
    if (!(await this.foldersOnTheWay(parts, parts.length))) {
      const st = await fs.lstat(path.join(this.realRoot, ...parts)).catch(() => null);
      if (st && !st.isDirectory())
        throw new ContainedError({ file: parts.join('/'), message: 'is not a directory', code: 'not_a_directory' });
      return null;
    }
    const full = path.join(this.realRoot, ...parts);
    const real = await fs.realpath(full).catch(() => null);
    if (real === null) return null;
    if (!this.inside(real))
      throw new ContainedError({
        file: parts.join('/') || '.',
        message: 'resolves outside the directory',
        code: 'outside_dir',
      });
    return fs.readdir(full, { withFileTypes: true });
  }
}
