// Accepts uploaded hook-run batches: validate every record, stage the validated rows durably in PostgreSQL, then
// wake the worker through the ingest queue. A 202 means the batch is in PostgreSQL: losing Redis loses nothing but time.
import { createHash } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ApiError } from '../common/api-error';
import { addJob } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { NdjsonBody } from './ingest.body';
import type { IngestWakeData } from './ingest.job';
import { encodeRows, parseUpload, type UploadBody } from './ingest.parse';
import { IngestRepository, type StagedUpload } from './ingest.repository';

const ENQUEUE_TIMEOUT_MS = 1000;
const DEPTH_CACHE_MS = 500;

export interface UploadCaller {
  endpointId: string;
  groupId: string;
}

@Injectable()
export class IngestService {
  private readonly logger = new Logger('IngestService');
  private depth = { count: 0, bytes: 0, at: 0 };

  constructor(
    @InjectQueue(QUEUES.ingest) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: IngestRepository,
  ) {}

  // Validates a batch and stages it in PostgreSQL before answering; 400 names the bad lines, 429/503 tell the agent
  // to keep its spool.
  async accept(
    caller: UploadCaller,
    body: unknown,
    droppedHeader: string | undefined,
  ): Promise<{ accepted: number; jobId: string | null }> {
    const { upload, bytes } = this.bodyOf(body);
    const rows = parseUpload(upload, this.config.HOOK_RUN_UPLOAD_MAX_RECORDS);
    const droppedTotal = parseDropped(droppedHeader);
    if (rows.length === 0 && droppedTotal === null) return { accepted: 0, jobId: null };
    await this.ensureRoom(bytes);
    // Same endpoint + same content → same upload id while it is staged (a quick retry is not staged twice).
    const digest = createHash('sha256');
    for (const row of rows) digest.update(row.c.id);
    const id = `${caller.endpointId}-${digest.update(String(droppedTotal)).digest('hex').slice(0, 32)}`;
    const staged: StagedUpload = {
      id,
      endpointId: caller.endpointId,
      groupId: caller.groupId,
      receivedAt: new Date().toISOString(),
      droppedTotal,
      records: rows.length,
      bytes,
      encoding: 'rows',
      body: await encodeRows(rows),
    };
    await this.repository.stage(staged).catch((err: unknown) => {
      throw new ApiError('unavailable', `Hook-run store unavailable: ${(err as Error).message}`, undefined, {
        'retry-after': '5',
      });
    });
    this.depth.count++;
    this.depth.bytes += bytes;
    await this.wake(id);
    return { accepted: rows.length, jobId: id };
  }

  // The upload as parse input, and its size in bytes (inflated).
  private bodyOf(body: unknown): { upload: UploadBody; bytes: number } {
    if (body instanceof NdjsonBody) return { upload: { kind: 'ndjson', text: body.text }, bytes: body.bytes };
    if (typeof body === 'string') return { upload: { kind: 'ndjson', text: body }, bytes: Buffer.byteLength(body) };
    const list = Array.isArray(body) ? body : (body as { records?: unknown } | null)?.records;
    if (!Array.isArray(list)) {
      throw new ApiError('validation_failed', 'Body must be NDJSON, a JSON array of records or { "records": [...] }');
    }
    return { upload: { kind: 'json', items: list }, bytes: Buffer.byteLength(JSON.stringify(list)) };
  }

  // Wakes a worker for the staged upload; without Redis the worker's periodic drain stores it (nothing is lost).
  private async wake(uploadId: string): Promise<void> {
    const client = await withTimeout(this.queue.getBackend().client, 200).catch(() => null);
    if (!client || client.status !== 'ready') return;
    const data: IngestWakeData = { uploadId };
    await withTimeout(addJob(this.queue, 'ingest-batch', data, { jobId: uploadId }), ENQUEUE_TIMEOUT_MS).catch(
      (err: unknown) =>
        this.logger.warn(`could not queue ingest of ${uploadId} (the drain will): ${(err as Error).message}`),
    );
  }

  // Refuses with 429 when the staged uploads waiting for the worker exceed the count or byte cap (503 when the
  // database does not answer); both keep the agent's spool.
  private async ensureRoom(bytes: number): Promise<void> {
    const now = Date.now();
    if (now - this.depth.at > DEPTH_CACHE_MS) {
      const depth = await this.repository.stagedDepth().catch(() => {
        throw new ApiError('unavailable', 'Hook-run store unavailable', undefined, { 'retry-after': '5' });
      });
      this.depth = { ...depth, at: now };
    }
    const { count, bytes: waiting } = this.depth;
    const full =
      count >= this.config.HOOK_RUN_INGEST_MAX_WAITING ||
      (waiting > 0 && waiting + bytes > this.config.HOOK_RUN_INGEST_MAX_WAITING_BYTES);
    if (full) {
      const retryAfter = Math.min(60, 2 + Math.ceil(count / 500) + Math.ceil(waiting / (64 * 1024 * 1024)));
      throw new ApiError(
        'rate_limited',
        `Ingest backlog is full (${count} uploads, ${waiting} bytes waiting); retry later`,
        { waiting: count, waitingBytes: waiting },
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
