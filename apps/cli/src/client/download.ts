// Streams an export to a file (temp file renamed on success, never a partial file) or to stdout, with an idle
// timeout and a progress indicator on stderr when it is a terminal.
import { randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { FetchResponse } from '@hookwarden/admin-client';
import { CliError } from '../cli/errors';
import { networkReason } from './api-client';

export interface DownloadOptions {
  /** Destination file, or '-' for stdout. */
  out: string;
  /** Abort when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  progress: boolean;
}

export interface DownloadResult {
  bytes: number;
  lines: number;
  file: string;
}

// Human-readable byte count.
function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

// Downloads the answer of `open` (a typed request sent with the given abort signal) into `o.out`.
export async function download(
  open: (signal: AbortSignal) => Promise<FetchResponse>,
  o: DownloadOptions,
): Promise<DownloadResult> {
  const ac = new AbortController();
  const idleMs = o.idleTimeoutMs ?? 60_000;
  let idle = setTimeout(() => ac.abort(), idleMs);
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => ac.abort(), idleMs);
  };
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  const toStdout = o.out === '-';
  const final = toStdout ? '-' : path.resolve(o.out);
  const tmp = toStdout
    ? ''
    : path.join(path.dirname(final), `.${path.basename(final)}.${randomBytes(4).toString('hex')}.partial`);
  let bytes = 0;
  let lines = 0;
  let lastDraw = 0;
  const draw = (done = false) => {
    if (!o.progress) return;
    const now = Date.now();
    if (!done && now - lastDraw < 200) return;
    lastDraw = now;
    process.stderr.write(
      `\r\x1b[K${done ? 'downloaded' : 'downloading'} ${size(bytes)}, ${lines} line(s)${done ? '\n' : ''}`,
    );
  };
  try {
    const res = await open(ac.signal);
    touch();
    if (!res.body) throw new CliError('the server sent no body');
    const sink = toStdout ? process.stdout : createWriteStream(tmp, { mode: 0o600, flags: 'wx' });
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        touch();
        bytes += value.byteLength;
        for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
        if (!sink.write(value)) await new Promise<void>((r) => sink.once('drain', () => r()));
        draw();
      }
    } catch (err) {
      throw new CliError(
        ac.signal.aborted
          ? `the download stalled (no data for ${idleMs / 1000} s) or was interrupted`
          : `the download failed: ${networkReason(err)}`,
      );
    }
    if (!toStdout) {
      await new Promise<void>((resolve, reject) =>
        (sink as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      await fs.rename(tmp, final);
    }
    draw(true);
    return { bytes, lines, file: final };
  } catch (err) {
    if (tmp) await fs.rm(tmp, { force: true });
    if (o.progress) process.stderr.write('\n');
    throw err;
  } finally {
    clearTimeout(idle);
    process.removeListener('SIGINT', onSigint);
  }
}
