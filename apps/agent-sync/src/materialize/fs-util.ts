// Filesystem helpers for the layer: fsync'd writes, atomic symlink replacement, lstat without throwing.
import { randomBytes } from 'node:crypto';
import { type Stats, promises as fs } from 'node:fs';
import path from 'node:path';
import { fsyncDir, writeSynced } from '../state/atomic-file';

export { fsyncDir, writeSynced };

// lstat, or null when the path does not exist.
export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fs.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return null;
    throw err;
  }
}

// readlink, or null when the path is not a symlink.
export async function readlinkOrNull(p: string): Promise<string | null> {
  try {
    return await fs.readlink(p);
  } catch {
    return null;
  }
}

// Points `linkPath` at `target` atomically (temp symlink + rename), then flushes the directory.
export async function symlinkAtomic(target: string, linkPath: string): Promise<void> {
  const dir = path.dirname(linkPath);
  const tmp = path.join(dir, `.${path.basename(linkPath)}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.symlink(target, tmp);
  try {
    await fs.rename(tmp, linkPath);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}

// Random suffix for staging names.
export function rand(): string {
  return randomBytes(6).toString('hex');
}
