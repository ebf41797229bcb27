// Accepts uploaded hook-run batches: validate every record, then hand the batch to the ingest queue as one job.
import { createHash } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ApiError } from '../common/api-error';
import { jsonDepth, MAX_JSON_DEPTH } from '../common/json-depth';
import { jsonPath } from '../common/zod-issues';
import { JOBS, QUEUES } from '../queues/queue-names';
import type { IngestJobData, IngestRow } from './ingest.job';
import { columnsOf, recordHashOf, runRecordSchema } from './run-record';

const MAX_REPORTED_ISSUES = 20;
const ENQUEUE_TIMEOUT_MS = 3000;
const DEPTH_CACHE_MS = 500;

export interface UploadCaller {
  endpointId: string;
  groupId: string;
}

@Injectable()
export class IngestService {
  private depth = { value: 0, at: 0 };

  constructor(
    @InjectQueue(QUEUES.ingest) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Validates a batch and enqueues it; 400 names the first bad lines, 429/503 tell the agent to keep its spool.
  async accept(
    caller: UploadCaller,
    body: unknown,
    droppedHeader: string | undefined,
  ): Promise<{ accepted: number; jobId: string | null }> {
    const rows = this.parse(body);
    const droppedTotal = parseDropped(droppedHeader);
    if (rows.length === 0 && droppedTotal === null) return { accepted: 0, jobId: null };
    await this.ensureQueueAvailable();
    const data: IngestJobData = {
      endpointId: caller.endpointId,
      groupId: caller.groupId,
      receivedAt: new Date().toISOString(),
      droppedTotal,
      rows,
    };
    // Same endpoint + same content → same job id while it is queued (a quick retry is not queued twice).
    const digest = createHash('sha256');
    for (const row of rows) digest.update(row.c.id);
    const jobId = `${caller.endpointId}-${digest.update(String(droppedTotal)).digest('hex').slice(0, 32)}`;
    const job = await withTimeout(
      this.queue.add(JOBS.ingestBatch, data, {
        jobId,
        attempts: 12,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: { age: 7 * 24 * 3600 },
      }),
      ENQUEUE_TIMEOUT_MS,
    ).catch((err: unknown) => {
      throw new ApiError('unavailable', `Ingest queue unavailable: ${(err as Error).message}`, undefined, {
        'retry-after': '5',
      });
    });
    return { accepted: rows.length, jobId: job.id ?? null };
  }

  // Turns an NDJSON text or a JSON array/object into validated rows, naming the line and field of every problem.
  private parse(body: unknown): IngestRow[] {
    let items: Array<{ line: number; text: string; raw: string | null; value: unknown }>;
    if (typeof body === 'string') {
      items = [];
      const lines = body.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i]!.replace(/\r$/, '');
        if (text.trim() === '') continue;
        let value: unknown;
        try {
          if (jsonDepth(text) > MAX_JSON_DEPTH) throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels`);
          value = JSON.parse(text);
        } catch (err) {
          throw new ApiError('validation_failed', `line ${i + 1}: invalid JSON: ${(err as Error).message}`, [
            { line: i + 1, path: '$', message: 'invalid JSON' },
          ]);
        }
        items.push({ line: i + 1, text, raw: text, value });
      }
    } else {
      const list = Array.isArray(body) ? body : (body as { records?: unknown } | null)?.records;
      if (!Array.isArray(list)) {
        throw new ApiError('validation_failed', 'Body must be NDJSON, a JSON array of records or { "records": [...] }');
      }
      items = (list as unknown[]).map((value, i) => ({ line: i + 1, text: JSON.stringify(value), raw: null, value }));
    }
    if (items.length > this.config.HOOK_RUN_UPLOAD_MAX_RECORDS) {
      throw new ApiError(
        'payload_too_large',
        `Batch has ${items.length} records; at most ${this.config.HOOK_RUN_UPLOAD_MAX_RECORDS} are accepted`,
      );
    }
    const rows: IngestRow[] = [];
    const issues: Array<{ line: number; path: string; message: string }> = [];
    for (const item of items) {
      const parsed = runRecordSchema.safeParse(item.value);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          if (issues.length < MAX_REPORTED_ISSUES)
            issues.push({ line: item.line, path: jsonPath(issue.path), message: issue.message });
        }
        continue;
      }
      rows.push({ c: columnsOf(parsed.data, recordHashOf(item.value, item.raw)), r: item.text });
    }
    if (issues.length > 0) {
      const first = issues[0]!;
      throw new ApiError(
        'validation_failed',
        `line ${first.line}: ${first.path}: ${first.message}${issues.length > 1 ? ` (and more)` : ''}`,
        issues,
      );
    }
    return rows;
  }

  // Refuses fast when Redis is not connected (503) or the queue is too deep (429); both keep the agent's spool.
  private async ensureQueueAvailable(): Promise<void> {
    // The client promise waits for a first connection: bound it so a Redis outage answers at once.
    const client = await withTimeout(this.queue.getBackend().client, 1000).catch(() => null);
    if (!client || client.status !== 'ready') {
      throw new ApiError('unavailable', 'Ingest queue unavailable (Redis not connected)', undefined, {
        'retry-after': '5',
      });
    }
    const now = Date.now();
    if (now - this.depth.at > DEPTH_CACHE_MS) {
      const waiting = await withTimeout(this.queue.getWaitingCount(), ENQUEUE_TIMEOUT_MS).catch(() => {
        throw new ApiError('unavailable', 'Ingest queue unavailable', undefined, { 'retry-after': '5' });
      });
      this.depth = { value: waiting, at: now };
    }
    if (this.depth.value >= this.config.HOOK_RUN_INGEST_MAX_WAITING) {
      const retryAfter = Math.min(60, 2 + Math.ceil(this.depth.value / 500));
      throw new ApiError(
        'rate_limited',
        `Ingest queue is full (${this.depth.value} batches waiting); retry later`,
        { waiting: this.depth.value },
        { 'retry-after': String(retryAfter) },
      );
    }
  }
}

// Parses the dropped-records header (a non-negative integer) or null when absent.
function parseDropped(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  if (!/^\d{1,15}$/.test(value)) {
    throw new ApiError('validation_failed', 'x-hookwarden-records-dropped must be a non-negative integer');
  }
  return Number(value);
}

// Rejects when `work` takes longer than `ms`.
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
