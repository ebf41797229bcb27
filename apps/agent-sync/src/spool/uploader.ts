// Uploads closed spool segments in gzip NDJSON batches; deletes a segment only after the server accepted all of it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { listClosedSegments, readSpoolState, SpoolSink } from '@hookwarden/hook-core';
import { type ApiClient, ApiHttpError } from '../client/api-client';
import { Backoff } from '../client/backoff';
import { log, logThrottled } from '../log';

export interface UploaderOptions {
  spoolDir: string;
  client: ApiClient;
  /** Largest batch before gzip (default 1 MiB). */
  maxBatchBytes?: number;
  /** Most records per batch (default 1000). */
  maxBatchRecords?: number;
  /** Seal the open segment once it is this old, so quiet periods still upload (default 5 s). */
  sealAfterMs?: number;
  /** Pause between rounds when the spool is empty (default 2 s). */
  intervalMs?: number;
  /** Cap of the retry backoff (default 60 s). */
  maxBackoffMs?: number;
  /** Called after each round (e.g. refresh the capture settings). */
  onRound?: () => Promise<void>;
}

export interface UploadCounters {
  /** Records in closed or open segments, not yet accepted by the server. */
  uploadsPending: number;
  /** Records the spool dropped over its lifetime (size cap reached). */
  recordsDropped: number;
}

export const REJECTED_DIR = 'rejected';

export class SpoolUploader {
  private counters: UploadCounters = { uploadsPending: 0, recordsDropped: 0 };
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly backoff: Backoff;

  constructor(private readonly opts: UploaderOptions) {
    this.backoff = new Backoff(500, opts.maxBackoffMs ?? 60_000);
  }

  // The last counters seen (for the status report).
  get current(): UploadCounters {
    return { ...this.counters };
  }

  // Seals an open segment older than sealAfterMs, then uploads every closed segment; returns records accepted.
  async uploadOnce(): Promise<number> {
    const state = await readSpoolState(this.opts.spoolDir);
    if (state.open && Date.now() - state.open.createdAt >= (this.opts.sealAfterMs ?? 5000)) {
      await new SpoolSink(this.opts.spoolDir).seal();
    }
    const segments = await listClosedSegments(this.opts.spoolDir);
    await this.refreshCounters();
    const maxBytes = this.opts.maxBatchBytes ?? 1024 * 1024;
    const maxRecords = this.opts.maxBatchRecords ?? 1000;
    let batch: string[] = [];
    let bytes = 0;
    let complete: string[] = [];
    let accepted = 0;
    const flush = async (): Promise<void> => {
      if (batch.length > 0) await this.send(batch, complete);
      accepted += batch.length;
      for (const name of complete) await fs.rm(path.join(this.opts.spoolDir, name), { force: true });
      batch = [];
      bytes = 0;
      complete = [];
      await this.refreshCounters();
    };
    for (const seg of segments) {
      const text = await fs.readFile(path.join(this.opts.spoolDir, seg.name), 'utf8').catch(() => null);
      if (text === null) continue;
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const size = Buffer.byteLength(line) + 1;
        if (batch.length > 0 && (bytes + size > maxBytes || batch.length >= maxRecords)) await flush();
        batch.push(line);
        bytes += size;
      }
      complete.push(seg.name);
    }
    await flush();
    return accepted;
  }

  // Runs upload rounds until stopped: backoff with jitter on errors, the server's Retry-After when given.
  async run(): Promise<void> {
    while (!this.stopped) {
      let delay = this.opts.intervalMs ?? 2000;
      try {
        const n = await this.uploadOnce();
        if (n > 0) log('info', 'hook-run records uploaded', { records: n });
        this.backoff.reset();
        await this.opts.onRound?.().catch(() => undefined);
      } catch (err) {
        const retryAfter = err instanceof ApiHttpError ? err.retryAfterMs : null;
        delay = this.backoff.next(retryAfter);
        logThrottled('upload-error', 'warn', 'hook-run upload failed; keeping the spool', {
          error: err instanceof Error ? err.message : String(err),
          retryInMs: delay,
        });
      }
      await this.sleep(delay);
    }
  }

  // Ends the loop after the current round.
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  // Posts one batch; a 400 (records the server will never accept) moves the segments aside instead of blocking forever.
  private async send(lines: string[], complete: string[]): Promise<void> {
    const body = gzipSync(lines.join('\n') + '\n');
    const state = await readSpoolState(this.opts.spoolDir);
    try {
      await this.opts.client.send('POST', '/v1/agent/hook-runs', {
        body,
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          'x-hookwarden-records-dropped': String(state.droppedTotal),
        },
      });
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 400 && complete.length > 0) {
        await fs.mkdir(path.join(this.opts.spoolDir, REJECTED_DIR), { recursive: true, mode: 0o700 });
        for (const name of complete) {
          await fs.rename(path.join(this.opts.spoolDir, name), path.join(this.opts.spoolDir, REJECTED_DIR, name));
        }
        log('error', 'hook-run batch rejected by the server; segments moved aside', {
          segments: complete,
          error: err.message,
        });
        complete.length = 0;
        return;
      }
      throw err;
    }
  }

  // Recomputes pending and dropped counts from the segment names and the spool state.
  private async refreshCounters(): Promise<void> {
    const state = await readSpoolState(this.opts.spoolDir);
    const segments = await listClosedSegments(this.opts.spoolDir);
    let pending = segments.reduce((n, s) => n + (s.lastSeq - s.firstSeq + 1), 0);
    if (state.open) pending += state.open.lastSeq - state.open.firstSeq + 1;
    this.counters = { uploadsPending: pending, recordsDropped: state.droppedTotal };
  }

  // Waits `ms` or until stop() (one pending wake-up at a time: nothing accumulates across rounds).
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
