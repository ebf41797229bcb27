// Shared CLI pieces: exit codes, streams, errors.
import { readSync, writeSync } from 'node:fs';

/** Exit codes of zerotwo-hooks. */
export const EXIT = {
  /** Success (for dispatch: the hooks ran; the decision is in the printed JSON). */
  OK: 0,
  /** Usage error or internal error. */
  USAGE: 1,
  /** Configuration error: lint errors, unknown hook key, a requirements file that fails closed. */
  CONFIG: 2,
} as const;

/** Input/output streams of one CLI invocation (injectable for tests). */
export interface CliIo {
  readStdin(): Promise<string>;
  out(text: string): void;
  err(text: string): void;
}

/** Is this error a "try again" from a non-blocking descriptor? */
const wouldBlock = (e: unknown): boolean => (e as NodeJS.ErrnoException).code === 'EAGAIN';

/** Reads stdin to its end with plain read(2) calls (no stream machinery to load: a hook event is one short process). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      if (!wouldBlock(e)) throw e;
      // A non-blocking stdin: read the rest through the stream.
      for await (const c of process.stdin) chunks.push(c as Buffer);
      break;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  // A UTF-8 byte-order mark (PowerShell and Notepad write one) is not part of the JSON.
  const text = Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Writes to fd 1 or 2 synchronously; falls back to the stream when the descriptor is non-blocking and full. */
function writeFd(fd: 1 | 2, text: string): void {
  const data = Buffer.from(text, 'utf8');
  let off = 0;
  try {
    while (off < data.length) off += writeSync(fd, data, off);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') return; // the reader went away: nothing left to tell
    if (!wouldBlock(e)) throw e;
    (fd === 1 ? process.stdout : process.stderr).write(data.subarray(off));
  }
}

/** Process streams. */
export const processIo: CliIo = {
  readStdin,
  out: (t) => writeFd(1, t),
  err: (t) => writeFd(2, t),
};

/** An error carrying an exit code. */
export class CliError extends Error {
  /** Error with the exit code the CLI should return. */
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Reports a failed command (never a stack trace: the message says what failed); returns its exit code. */
export function cliFailure(e: unknown, io: CliIo): number {
  if (e instanceof CliError) {
    io.err(`zerotwo-hooks: ${e.message}\n`);
    return e.exitCode;
  }
  io.err(`zerotwo-hooks: error: ${e instanceof Error ? e.message : String(e)}\n`);
  return EXIT.USAGE;
}

/** Exit codes, as printed at the end of `--help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  success (dispatch: the hooks ran, the decision is in the printed JSON; lint: no errors)
  1  usage or internal error (unknown command, event or option, an invalid option value, stdin not a JSON object)
  2  configuration error (lint: something would stop a configured hook from running; an unknown hook key;
     changing a managed hook; list: discovery reported an error, e.g. a requirements.toml that fails closed)
`;

/** Mutable result of one invocation (commands may set a non-zero exit code). */
export interface CliState {
  exitCode: number;
}
