// Crash-safe file writes: temp file in the same directory, fsync, rename, fsync the directory.
import { promises as fs } from 'node:fs';
import path from 'node:path';

// Writes `data` to `file` atomically with the given mode; readers see the old or the new content, never a mix.
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // node:crypto on first write, not at import: the hook path imports this module's readers and writes nothing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { randomBytes } = require('node:crypto') as typeof import('node:crypto');
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  await writeSynced(tmp, data, mode);
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}

// Creates a file exclusively with the mode, writes it and flushes it to disk.
export async function writeSynced(file: string, data: string | Uint8Array, mode: number): Promise<void> {
  const handle = await fs.open(file, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// Flushes a directory entry (rename durability); ignored where directories cannot be opened (Windows).
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close();
  }
}
