// Default run-record sink: an append-only NDJSON spool with per-endpoint sequence numbers and a hash chain. Its file
// operations are synchronous (small local files under the spool's lock): a hook event is a short process, and
// node:fs/promises would be a dozen more modules for it to load.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../trust/canonical-json';
import { sha256Hex } from './canonical';
import type { RunRecord, RunRecordDraft } from './schema';
import type { RunRecordSink } from './sink';

/** Options of the spool sink. */
export interface SpoolSinkOptions {
  /** Policy in force, stamped on every record (revision and digest of the managed requirements). */
  policy?: { revision: string | null; digest: string | null };
  /** Rotate the open segment when it reaches this size (default 1 MiB). */
  maxSegmentBytes?: number;
  /** Rotate the open segment when it is older than this (default 60 s). */
  maxSegmentAgeMs?: number;
  /** Spool size cap over all segments (default 256 MiB): beyond it records are dropped and counted. */
  maxSpoolBytes?: number;
  /** A lock older than this is considered stale and broken (default 10 s). */
  staleLockMs?: number;
  /** Give up acquiring the lock after this long (default 30 s). */
  lockTimeoutMs?: number;
  /** fsync segments and state before `write` resolves (default true). */
  fsync?: boolean;
  now?: () => number;
}

/** The spool's state file (`state.json`). */
export interface SpoolState {
  version: 1;
  lastSeq: number;
  /** sha256 hex of the last written record line, or null. */
  lastHash: string | null;
  /** Records dropped since the last written record (reported on the next one), or null. */
  pendingGap: { dropped: number; fromSeq: number; toSeq: number } | null;
  /** Records dropped over the spool's lifetime (reported in agent status). */
  droppedTotal: number;
  /** The open segment being appended. */
  open: { name: string; firstSeq: number; lastSeq: number; createdAt: number; bytes: number } | null;
}

export const SPOOL_STATE_FILE = 'state.json';
export const SPOOL_LOCK_FILE = 'lock';
/** Closed segment names: `seg-<firstSeq>-<lastSeq>.ndjson` (zero-padded to 12 digits). */
export const CLOSED_SEGMENT_RE = /^seg-(\d+)-(\d+)\.ndjson$/;
const OPEN_SEGMENT_RE = /^seg-(\d+)\.ndjson\.open$/;

/** Writes all of `text` to `fd` (writeSync may write less than asked). */
function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text, 'utf8');
  for (let off = 0; off < data.length;) off += writeSync(fd, data, off);
}

/** Zero-padded sequence number for segment names (lexical order = numeric order). */
function pad(n: number): string {
  return String(n).padStart(12, '0');
}

/** A fresh spool state. */
function initialState(): SpoolState {
  return { version: 1, lastSeq: 0, lastHash: null, pendingGap: null, droppedTotal: 0, open: null };
}

/** Read the spool state (a fresh one if absent). */
export function readSpoolState(dir: string): Promise<SpoolState> {
  return settled(() => readSpoolStateSync(dir));
}

/** The result of `fn` as a promise (rejected with what it threw). */
function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** readSpoolState, synchronously. */
function readSpoolStateSync(dir: string): SpoolState {
  try {
    return JSON.parse(readFileSync(join(dir, SPOOL_STATE_FILE), 'utf8')) as SpoolState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return initialState();
    throw new Error(`spool state ${join(dir, SPOOL_STATE_FILE)} is unreadable: ${(err as Error).message}`);
  }
}

/** Appends run records to `<spoolDir>` under an exclusive lock; safe with many concurrent dispatch processes. */
export class SpoolSink implements RunRecordSink {
  private readonly now: () => number;
  /** Spool in `dir` (created 0700 if missing). */
  constructor(
    readonly dir: string,
    private readonly options: SpoolSinkOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sequence, chain and append the records; resolves after they are fsync'd. Sets seq/prevHash/gap on the drafts. */
  async write(records: RunRecordDraft[]): Promise<void> {
    if (records.length === 0) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    await this.withLock(() => {
      const state = readSpoolStateSync(this.dir);
      this.recover(state);
      this.rotateIfDue(state);
      let spoolBytes = this.spoolBytes(state);
      const cap = this.options.maxSpoolBytes ?? 256 * 1024 * 1024;
      const lines: string[] = [];
      for (const draft of records) {
        const seq = ++state.lastSeq;
        // Shadow runs keep their own policy (the shadow layer's digest, no revision): no enforced gate counts them.
        if (this.options.policy && draft.shadow === undefined) draft.policy = this.options.policy;
        const rec = draft as RunRecord;
        rec.seq = seq;
        rec.prevHash = state.lastHash;
        if (state.pendingGap) rec.gap = state.pendingGap;
        const line = canonicalJson(rec);
        const size = Buffer.byteLength(line) + 1;
        if (spoolBytes + size > cap) {
          // Spool full: drop, but count it; the next written record carries the gap.
          delete rec.gap;
          state.pendingGap = state.pendingGap
            ? { dropped: state.pendingGap.dropped + 1, fromSeq: state.pendingGap.fromSeq, toSeq: seq }
            : { dropped: 1, fromSeq: seq, toSeq: seq };
          state.droppedTotal++;
          continue;
        }
        state.pendingGap = null;
        state.lastHash = sha256Hex(line);
        spoolBytes += size;
        lines.push(line);
        if (!state.open) {
          state.open = {
            name: `seg-${pad(seq)}.ndjson.open`,
            firstSeq: seq,
            lastSeq: seq,
            createdAt: this.now(),
            bytes: 0,
          };
        }
        state.open.lastSeq = seq;
        state.open.bytes += size;
      }
      if (lines.length > 0 && state.open) {
        const fd = openSync(join(this.dir, state.open.name), 'a', 0o600);
        try {
          writeAll(fd, lines.join('\n') + '\n');
          if (this.options.fsync !== false) fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      this.saveState(state);
    });
  }

  /** Close the open segment now (the agent calls this before uploading); returns the closed name, if any. */
  async seal(): Promise<string | undefined> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return this.withLock(() => {
      const state = readSpoolStateSync(this.dir);
      const closed = this.closeOpen(state);
      this.saveState(state);
      return closed;
    });
  }

  /**
   * Repair after a writer crashed between appending and saving the state: a partial last line is cut off and
   * `lastSeq`/`lastHash` are taken from the last complete record, so the chain continues without reused numbers.
   */
  private recover(state: SpoolState): void {
    const o = state.open;
    if (!o) return;
    const path = join(this.dir, o.name);
    let size: number;
    try {
      size = statSync(path).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      state.open = null;
      return;
    }
    if (size === o.bytes) return;
    const text = readFileSync(path, 'utf8');
    const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (complete.length !== text.length) truncateSync(path, Buffer.byteLength(complete));
    o.bytes = Buffer.byteLength(complete);
    const last = complete.trimEnd().split('\n').pop();
    if (!last) return;
    const seq = (JSON.parse(last) as { seq?: unknown }).seq;
    if (typeof seq === 'number' && seq >= state.lastSeq) {
      state.lastSeq = seq;
      state.lastHash = sha256Hex(last);
      state.pendingGap = null;
      o.lastSeq = seq;
    }
  }

  /** Close the open segment if it is too big or too old. */
  private rotateIfDue(state: SpoolState): void {
    const o = state.open;
    if (!o) return;
    const tooBig = o.bytes >= (this.options.maxSegmentBytes ?? 1024 * 1024);
    const tooOld = this.now() - o.createdAt >= (this.options.maxSegmentAgeMs ?? 60_000);
    if (tooBig || tooOld) this.closeOpen(state);
  }

  /** Rename the open segment to its closed name. */
  private closeOpen(state: SpoolState): string | undefined {
    const o = state.open;
    if (!o) return undefined;
    const closed = `seg-${pad(o.firstSeq)}-${pad(o.lastSeq)}.ndjson`;
    try {
      renameSync(join(this.dir, o.name), join(this.dir, closed));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    state.open = null;
    return closed;
  }

  /** Bytes held by all segments (closed ones are uploaded and deleted by the agent). */
  private spoolBytes(state: SpoolState): number {
    let total = 0;
    for (const name of readdirSync(this.dir)) {
      if (!CLOSED_SEGMENT_RE.test(name) && !OPEN_SEGMENT_RE.test(name)) continue;
      if (state.open && name === state.open.name) {
        total += state.open.bytes;
        continue;
      }
      try {
        total += statSync(join(this.dir, name)).size;
      } catch {
        // deleted by the uploader meanwhile
      }
    }
    return total;
  }

  /** Write state.json atomically (temp file, fsync, rename). */
  private saveState(state: SpoolState): void {
    const tmp = join(this.dir, `${SPOOL_STATE_FILE}.${process.pid}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeAll(fd, JSON.stringify(state));
      if (this.options.fsync !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, SPOOL_STATE_FILE));
  }

  /** Run `fn` holding the spool lock (`lock`, created with O_EXCL; stale locks are broken). */
  private async withLock<T>(fn: () => T): Promise<T> {
    const lockPath = join(this.dir, SPOOL_LOCK_FILE);
    const deadline = this.now() + (this.options.lockTimeoutMs ?? 30_000);
    const stale = this.options.staleLockMs ?? 10_000;
    let fd: number | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        fd = openSync(lockPath, 'wx', 0o600);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      try {
        const st = statSync(lockPath);
        if (Date.now() - st.mtimeMs > stale) {
          // Break a stale lock atomically: only one breaker wins the rename.
          const aside = `${lockPath}.stale.${process.pid}.${attempt}`;
          try {
            renameSync(lockPath, aside);
          } catch {
            continue; // another breaker won
          }
          unlinkSync(aside);
          continue;
        }
      } catch {
        continue; // lock vanished: retry at once
      }
      if (this.now() > deadline) throw new Error(`spool ${this.dir}: lock ${lockPath} held for too long`);
      await new Promise((r) => setTimeout(r, Math.min(2 + attempt, 20)));
    }
    try {
      writeAll(fd, `${process.pid} ${new Date().toISOString()}\n`);
      return fn();
    } finally {
      closeSync(fd);
      try {
        unlinkSync(lockPath);
      } catch {
        // already gone
      }
    }
  }
}

/** Closed segments of a spool in sequence order (for the uploader). */
export function listClosedSegments(dir: string): Promise<{ name: string; firstSeq: number; lastSeq: number }[]> {
  return Promise.resolve(closedSegmentsOf(dir));
}

/** listClosedSegments, synchronously. */
function closedSegmentsOf(dir: string): { name: string; firstSeq: number; lastSeq: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  return names
    .map((name) => {
      const m = CLOSED_SEGMENT_RE.exec(name);
      return m ? { name, firstSeq: Number(m[1]), lastSeq: Number(m[2]) } : undefined;
    })
    .filter((s): s is { name: string; firstSeq: number; lastSeq: number } => s !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

/** Write helper kept for tools: replace the state file (used by tests to simulate crashes). */
export function writeSpoolState(dir: string, state: SpoolState): Promise<void> {
  return settled(() => writeFileSync(join(dir, SPOOL_STATE_FILE), JSON.stringify(state), { mode: 0o600 }));
}
