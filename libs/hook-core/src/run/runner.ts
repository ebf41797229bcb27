// Runs one hook command: shell spawn in its own process group, stdin, capped capture, timeout with group kill.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { shellInvocation, type ShellOptions } from './shell';

/** Injectable clock: wall time (epoch ms) and a monotonic timer (ms). */
export interface Clock {
  now(): number;
  monotonic(): number;
}

/** Real clock. */
export const systemClock: Clock = { now: () => Date.now(), monotonic: () => Number(process.hrtime.bigint()) / 1e6 };

/**
 * node:child_process, loaded when a hook first runs: an event no hook matches starts no process, and the module (with
 * node:net and the stream modules it loads) is a large part of a short process's start.
 */
export function childProcess(): typeof import('node:child_process') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:child_process') as typeof import('node:child_process');
}

/** child_process.spawn, loaded on first call. */
export const nodeSpawn = ((...args: Parameters<typeof import('node:child_process').spawn>) =>
  childProcess().spawn(...args)) as typeof import('node:child_process').spawn;

/** A spawn function shaped like `child_process.spawn` (injectable for tests). */
export type SpawnFn = (file: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** One command to run. */
export interface RunRequest {
  command: string;
  cwd: string;
  /** Written to stdin, then stdin is closed. */
  stdin: string;
  timeoutSec: number;
  /** Full environment; defaults to the parent's. */
  env?: NodeJS.ProcessEnv;
}

/** Options shared by all runs of a dispatch. */
export interface RunnerOptions extends ShellOptions {
  /** Per-stream capture cap in bytes (default 1 MiB); the excess is discarded and flagged. */
  maxOutputBytes?: number;
  /** Delay between SIGTERM and SIGKILL of a timed-out process group (default 250 ms). */
  killGraceMs?: number;
  /** After the shell exits, how long to wait for background children to release stdout/stderr (default 100 ms). */
  closeGraceMs?: number;
  spawn?: SpawnFn;
  clock?: Clock;
}

/** What happened when a command ran. */
export interface RunResult {
  /** Epoch ms at spawn. */
  startedAt: number;
  durationMs: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Set when the process could not be started. */
  spawnError?: string;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;

/** Bounded byte collector for one output stream. */
class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  /** Collector limited to `cap` bytes. */
  constructor(private readonly cap: number) {}
  /** Keep a chunk, or the part of it that fits under the cap. */
  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.size += room;
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  /** Decoded text collected so far. */
  text(): string {
    if (this.chunks.length === 0) return '';
    return (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size)).toString('utf8');
  }
}

/** Parent → children of every process, from `wmic process get ParentProcessId,ProcessId` (UTF-16 or 8-bit text). */
export function parseProcessTable(out: Buffer): Map<number, number[]> {
  const utf16 = (out[0] === 0xff && out[1] === 0xfe) || (out.length > 1 && out[1] === 0);
  const text = out.toString(utf16 ? 'utf16le' : 'latin1');
  const children = new Map<number, number[]>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (!m) continue;
    const parent = Number(m[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(m[2]));
    children.set(parent, list);
  }
  return children;
}

/** Every descendant of `root` in a parent → children table (cycles and pid reuse cannot loop). */
export function descendantsOf(root: number, children: Map<number, number[]>): number[] {
  const out: number[] = [];
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** Ends a Windows process tree without taskkill /T: lists processes (wmic), terminates the descendants, then the shell. */
function killTreeByWalk(child: ChildProcess, pid: number): void {
  childProcess().execFile(
    'wmic',
    ['process', 'get', 'ParentProcessId,ProcessId'],
    { encoding: 'buffer', windowsHide: true, timeout: 10_000, maxBuffer: 4 << 20 },
    (_err, stdout) => {
      for (const p of stdout && stdout.length > 0 ? descendantsOf(pid, parseProcessTable(stdout)) : []) {
        try {
          process.kill(p);
        } catch {
          // already gone
        }
      }
      if (child.exitCode === null) child.kill();
    },
  );
}

/** Signal a whole process group (POSIX) or process tree (Windows, via taskkill), falling back to the child alone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals, isWindows: boolean): void {
  if (child.pid === undefined) return;
  if (isWindows) {
    // Rare path (timeouts only): an extra process is acceptable here.
    if (signal === 'SIGKILL') return;
    try {
      // taskkill /T /F ends the shell and every process it started; where /T is missing (Wine), the tree is walked.
      const pid = child.pid;
      nodeSpawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true })
        .on('error', () => killTreeByWalk(child, pid))
        .on('exit', (code) => {
          if (code !== 0) killTreeByWalk(child, pid);
        });
    } catch {
      child.kill();
    }
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Output of a Windows hook as the parser expects it: no UTF-8 byte-order mark, LF line ends (CRLF from cmd.exe). */
export function windowsText(text: string, isWindows: boolean): string {
  if (!isWindows) return text;
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n/g, '\n');
}

/** Longest delay Node's timers take (2^31 − 1 ms, about 24.8 days); a longer one would fire after 1 ms. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** Timer delay for a timeout in seconds: at least 1 s, clamped to what Node's timers can wait. */
export function timerDelayMs(timeoutSec: number): number {
  const ms = Math.max(1, timeoutSec) * 1000;
  return Number.isFinite(ms) ? Math.min(ms, MAX_TIMER_DELAY_MS) : MAX_TIMER_DELAY_MS;
}

/** Run one command through the shell and resolve with its result (never rejects). */
export function runCommand(req: RunRequest, options: RunnerOptions = {}): Promise<RunResult> {
  const clock = options.clock ?? systemClock;
  const spawn: SpawnFn = options.spawn ?? nodeSpawn;
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const isWindows = (options.platform ?? process.platform) === 'win32';
  const inv = shellInvocation(req.command, options);
  const startedAt = clock.now();
  const t0 = clock.monotonic();
  return new Promise<RunResult>((resolve) => {
    const out = new Capture(cap);
    const err = new Capture(cap);
    let timedOut = false;
    let exitCode: number | null = null;
    let signal: string | null = null;
    let settled = false;
    let exited = false;
    let killDone = true;
    let closed = false;
    const timers: { timeout?: NodeJS.Timeout; close?: NodeJS.Timeout } = {};
    let spawnError: string | undefined;
    let child: ChildProcess;

    const finish = (): void => {
      if (settled || !killDone || !(closed || spawnError !== undefined)) return;
      settled = true;
      clearTimeout(timers.timeout);
      clearTimeout(timers.close);
      resolve({
        startedAt,
        durationMs: Math.round((clock.monotonic() - t0) * 1000) / 1000,
        exitCode,
        signal,
        timedOut,
        stdout: windowsText(out.text(), isWindows),
        stderr: windowsText(err.text(), isWindows),
        stdoutTruncated: out.truncated,
        stderrTruncated: err.truncated,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };

    try {
      // Minimal options on the hot path: the parent's env unless overridden; a new process group on POSIX.
      const spawnOptions: SpawnOptions = { cwd: req.cwd, stdio: ['pipe', 'pipe', 'pipe'] };
      if (req.env !== undefined && req.env !== process.env) spawnOptions.env = req.env;
      if (isWindows) {
        spawnOptions.windowsHide = true;
        if (inv.windowsVerbatimArguments) spawnOptions.windowsVerbatimArguments = true;
      } else spawnOptions.detached = true;
      child = spawn(inv.file, inv.args, spawnOptions);
    } catch (e) {
      spawnError = (e as Error).message;
      finish();
      return;
    }

    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.stdin?.on('error', () => {
      // EPIPE/ECONNRESET: the hook did not read its stdin, which is allowed.
    });
    child.on('error', (e) => {
      spawnError = e.message;
      closed = true;
      finish();
    });
    child.on('exit', (code, sig) => {
      exited = true;
      exitCode = code;
      signal = sig;
      if (!closed) {
        // A background grandchild may hold the pipes open: stop waiting for it after a short grace.
        timers.close = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          closed = true;
          finish();
        }, options.closeGraceMs ?? 100);
      }
    });
    child.on('close', (code, sig) => {
      if (!exited) {
        exitCode = code;
        signal = sig;
      }
      closed = true;
      finish();
    });

    timers.timeout = setTimeout(() => {
      if (exited && closed) return;
      timedOut = true;
      killDone = false;
      killGroup(child, 'SIGTERM', isWindows);
      setTimeout(() => {
        killGroup(child, 'SIGKILL', isWindows);
        killDone = true;
        finish();
      }, options.killGraceMs ?? 250);
    }, timerDelayMs(req.timeoutSec));

    child.stdin?.end(req.stdin);
  });
}
