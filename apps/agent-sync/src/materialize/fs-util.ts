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

/** Error codes of a rename that Windows refuses while the target is open (a running hook holds its script). */
const IN_USE = new Set(['EPERM', 'EBUSY', 'EACCES']);

// Renames `tmp` over `target` (atomic per file), retrying with backoff while the target is in use (about 10 s in
// all); the temp file is removed when it finally fails, and the target is never half-written.
export async function replaceFileRetrying(tmp: string, target: string): Promise<void> {
  for (let attempt = 0, delay = 25; ; attempt++, delay = Math.min(delay * 2, 1000)) {
    try {
      await fs.rename(tmp, target);
      return;
    } catch (err) {
      if (attempt >= 14 || !IN_USE.has((err as NodeJS.ErrnoException).code ?? '')) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
