// Shared CLI pieces: exit codes, streams, errors.

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

/** Process streams. */
export const processIo: CliIo = {
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
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

/** Mutable result of one invocation (commands may set a non-zero exit code). */
export interface CliState {
  exitCode: number;
}
