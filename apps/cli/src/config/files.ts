// Bounded reads and atomic, private (0600) writes of the CLI's own files.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CliError } from '../cli/errors';

// Reads a file of at most `maxBytes`; null when it does not exist.
export async function readBounded(file: string, maxBytes: number): Promise<Buffer | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new CliError(`${file} is not a regular file`);
    if (st.size > maxBytes) throw new CliError(`${file} is ${st.size} bytes; the limit is ${maxBytes}`);
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let read = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, read, buf.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read > maxBytes) throw new CliError(`${file} grew beyond ${maxBytes} bytes while being read`);
    }
    return buf.subarray(0, read);
  } finally {
    await handle.close();
  }
}

// Makes sure `dir` (created 0700 when absent) cannot be written by other users, since whoever can write it can
// swap a file in it: a group/world-writable folder we own is tightened to 0700 (returns a note saying so); one we do
// not own is refused with what to do. A no-op on Windows (ACLs, not mode bits).
export async function securePrivateDir(dir: string): Promise<string | undefined> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return undefined;
  const st = await fs.stat(dir);
  const mode = st.mode & 0o7777;
  if ((mode & 0o022) === 0) return undefined;
  const octal = `0${(mode & 0o777).toString(8)}`;
  if (st.uid !== process.getuid()) {
    throw new CliError(
      `${dir} is writable by other users (mode ${octal}) and is not yours (owner uid ${st.uid}), so another user ` +
        'could replace the file holding your tokens: nothing was written. Use a private directory (--config FILE or ' +
        'HOOKWARDEN_CONFIG), or have its owner run `chmod 700` on it',
    );
  }
  try {
    await fs.chmod(dir, 0o700);
  } catch (err) {
    throw new CliError(
      `${dir} is writable by other users (mode ${octal}) and cannot be made private: ${(err as Error).message}`,
    );
  }
  return `${dir} was writable by other users (mode ${octal}): tightened to 0700`;
}

// Writes a file atomically (temp file + rename) with mode 0600, creating its directory with mode 0700.
export async function writePrivate(file: string, content: string | Buffer): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, content, { mode: 0o600, flag: 'wx' });
    await fs.chmod(tmp, 0o600);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
  }
}
