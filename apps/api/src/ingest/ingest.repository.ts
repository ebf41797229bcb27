// Writes hook-run batches in bulk and keeps each endpoint's record chain (sequence + hash links) with its findings.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { PgPools } from '../database/pg-pools';
import {
  COLUMN_NAMES,
  type ColumnName,
  HOOK_RUN_COLUMNS,
  HOOK_RUN_KEY,
  type RecordColumnName,
  sqlName,
} from '../database/hook-run-columns';
import { ensurePartition, monthStart } from '../database/partitions';
import { ApiError } from '../common/api-error';
import type { IngestJobData } from './ingest.job';
import { decodeRows, type IngestRow, parseUpload, type UploadBody } from './ingest.parse';
import { endpointCounts, releaseRevisionOf, unservedClaims } from './evidence';

/** Rows fetched per step while walking a chain forward. */
const WALK_STEP = 2000;

/** One stored record as the chain walk sees it. */
interface WalkRow {
  seq: number;
  prev_hash: string | null;
  record_hash: string;
  received_at: Date;
  gap: { dropped: number; fromSeq: number; toSeq: number } | null;
}

interface ChainState {
  nextSeq: number;
  lastHash: string | null;
}

/** Columns taken from the upload rather than the record. */
type UploadColumnName = Exclude<ColumnName, RecordColumnName>;
const UPLOAD_VALUES = {
  receivedAt: (job) => job.receivedAt,
  endpointId: (job) => job.endpointId,
  groupId: (job) => job.groupId,
} satisfies Record<UploadColumnName, (job: IngestJobData) => string>;

/** One value of a row for COPY / unnest. */
type Getter = (row: IngestRow, job: IngestJobData) => string | number | boolean | null;
// Column list of the bulk insert (from the one column table): SQL name, array element type, value getter.
const COLUMNS: Array<[string, string, Getter]> = COLUMN_NAMES.map((k) => {
  const spec = HOOK_RUN_COLUMNS[k];
  const get: Getter =
    spec.from === 'upload'
      ? (_row, job) => UPLOAD_VALUES[k as UploadColumnName](job)
      : (row) => row.c[k as RecordColumnName];
  return [sqlName(k), spec.pg === 'jsonb' ? 'text' : spec.pg, get];
});
const JSONB = new Set(COLUMN_NAMES.filter((k) => HOOK_RUN_COLUMNS[k].pg === 'jsonb').map(sqlName));

// The batch's rows with this endpoint's stored records skipped (the fallback when COPY meets one); returns the
// inserted ids. The key includes the endpoint: another endpoint's record with the same id never pre-empts a row.
const INSERT_SQL = `INSERT INTO hook_runs (${COLUMNS.map(([n]) => n).join(', ')})
  SELECT ${COLUMNS.map(([n]) => (JSONB.has(n) ? `u.${n}::jsonb` : `u.${n}`)).join(', ')}
  FROM unnest(${COLUMNS.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')}) AS u(${COLUMNS.map(([n]) => n).join(', ')})
  ON CONFLICT (${HOOK_RUN_KEY.map(sqlName).join(', ')}) DO NOTHING
  RETURNING id`;

// COPY of a batch straight into hook_runs (PostgreSQL inserts its rows in bulk, about half the work of INSERT … SELECT
// per row); a duplicate record id aborts it and the batch takes the INSERT … ON CONFLICT path instead.
const COPY_SQL = `COPY hook_runs (${COLUMNS.map(([n]) => n).join(', ')}) FROM STDIN`;

// Appends the hourly counts of the rows actually inserted (append-only; see the hook_run_hourly migration).
const COUNTS_SQL = `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
  SELECT u.hour, $1::uuid, u.event, u.decision, u.status, u.rev, u.n
  FROM unnest($2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[])
    AS u(hour, event, decision, status, rev, n)`;

// Adds the inserted rows' per-endpoint counts (the rollout gate's input; one writer per endpoint: the chain lock).
const ENDPOINT_COUNTS_SQL = `INSERT INTO hook_run_endpoint_counts (endpoint_id, group_id, policy_revision, hour, ran, failed)
  SELECT $1::uuid, $2::uuid, u.rev, u.hour, u.ran, u.failed
  FROM unnest($3::int4[], $4::timestamptz[], $5::int8[], $6::int8[]) AS u(rev, hour, ran, failed)
  ON CONFLICT (endpoint_id, group_id, policy_revision, hour)
  DO UPDATE SET ran = hook_run_endpoint_counts.ran + EXCLUDED.ran, failed = hook_run_endpoint_counts.failed + EXCLUDED.failed`;

// Adds records to the endpoint's open `unserved_revision` finding of a revision; no row when there is none yet.
const UNSERVED_UPDATE_SQL = `UPDATE hook_run_findings SET
    from_seq = LEAST(from_seq, $4::int8), to_seq = GREATEST(to_seq, $5::int8),
    details = details || jsonb_build_object('count', (details->>'count')::int8 + $3::int8, 'lastSeenAt', now())
  WHERE id = (SELECT id FROM hook_run_findings WHERE endpoint_id = $1::uuid AND kind = 'unserved_revision'
                AND resolved_at IS NULL AND details->>'revision' IS NOT DISTINCT FROM $2::text
              ORDER BY detected_at DESC LIMIT 1)
  RETURNING id`;

// Keeps a record PostgreSQL refused on its own (byte for byte, with the error); null when it was already kept.
const QUARANTINE_SQL = `INSERT INTO hook_run_quarantine
    (id, endpoint_id, group_id, received_at, record_id, seq, prev_hash, record_hash, gap, line, error, sqlstate)
  VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (endpoint_id, record_hash) DO NOTHING RETURNING id`;

/** SQLSTATE classes of errors one record's values cause (data exception, integrity, program limit). */
const RECORD_ERROR_CLASSES = new Set(['22', '23', '54']);

// True when PostgreSQL refused the values themselves (a record problem), not the connection or the server.
function isRecordError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && RECORD_ERROR_CLASSES.has(code.slice(0, 2));
}

// One value in COPY's text format (\N for null; backslash, tab, newline and CR escaped).
function copyText(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  const text = typeof v === 'string' ? v : String(v);
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : text;
}

/** Bytes of COPY text sent to PostgreSQL per write (one socket write per line cost the worker a syscall per row). */
const COPY_CHUNK_CHARS = 64 * 1024;

// The batch as COPY text, whole lines joined into chunks of about COPY_CHUNK_CHARS.
function* copyLines(job: IngestJobData, rows: IngestRow[]): Generator<string> {
  let chunk: string[] = [];
  let size = 0;
  for (const row of rows) {
    const line = `${COLUMNS.map(([, , get]) => copyText(get(row, job))).join('\t')}\n`;
    chunk.push(line);
    size += line.length;
    if (size >= COPY_CHUNK_CHARS) {
      yield chunk.join('');
      chunk = [];
      size = 0;
    }
  }
  if (chunk.length > 0) yield chunk.join('');
}

// Counts of the batch's rows per UTC hour, event, decision, status and policy revision (the rollup's key).
function hourlyCounts(rows: IngestRow[]): unknown[][] {
  const counts = new Map<string, { k: string[]; n: number }>();
  for (const { c } of rows) {
    // Shadow runs (observe mode) decide nothing: kept out of the rollup the stats and metrics read.
    if (c.shadowReleaseId !== null) continue;
    const t = Date.parse(c.startedAt);
    const hour = new Date(t - (((t % 3_600_000) + 3_600_000) % 3_600_000)).toISOString();
    const k = [hour, c.event, c.decision ?? '', c.status, c.policyRevision ?? ''];
    const key = k.join('\u0000');
    const e = counts.get(key);
    if (e) e.n++;
    else counts.set(key, { k, n: 1 });
  }
  const cols: unknown[][] = [[], [], [], [], [], []];
  for (const { k, n } of counts.values()) {
    k.forEach((v, i) => cols[i]!.push(v));
    cols[5]!.push(n);
  }
  return cols;
}

/** An upload as staged in hook_run_uploads before the API answers 202. */
export interface StagedUpload {
  id: string;
  endpointId: string;
  groupId: string;
  receivedAt: string;
  droppedTotal: number | null;
  records: number;
  bytes: number;
  /** 'rows': the validated rows (encodeRows); 'gzip' / 'ndjson' / 'json': an upload body to parse again. */
  encoding: 'rows' | 'gzip' | 'ndjson' | 'json';
  body: Buffer;
}

export interface IngestResult {
  inserted: number;
  /** Records PostgreSQL refused on their own, kept in hook_run_quarantine. */
  quarantined: number;
  findings: number;
}

@Injectable()
export class IngestRepository {
  private readonly knownMonths = new Set<number>();

  constructor(
    private readonly pools: PgPools,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Stages an accepted upload (the API's side of "accepted means stored"); a re-sent identical upload is staged once.
  async stage(u: StagedUpload): Promise<void> {
    await this.pools.write.query(
      `INSERT INTO hook_run_uploads (id, endpoint_id, group_id, received_at, dropped_total, records, bytes, encoding, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
      [u.id, u.endpointId, u.groupId, u.receivedAt, u.droppedTotal, u.records, u.bytes, u.encoding, u.body],
    );
  }

  // The staged uploads waiting for a worker: how many, and their inflated bytes.
  async stagedDepth(): Promise<{ count: number; bytes: number }> {
    const res = await this.pools.write.query<{ count: number; bytes: number }>(
      'SELECT count(*)::int AS count, coalesce(sum(bytes), 0)::int8 AS bytes FROM hook_run_uploads',
    );
    return res.rows[0]!;
  }

  // Staged uploads due for an attempt, oldest first (the drain's work list); `minAgeSec` leaves the fresh ones to
  // the queue jobs that wake workers for them.
  async dueUploads(limit: number, minAgeSec = 0): Promise<string[]> {
    const res = await this.pools.write.query<{ id: string }>(
      `SELECT id FROM hook_run_uploads WHERE next_attempt_at <= now() AND received_at <= now() - make_interval(secs => $2)
        ORDER BY received_at LIMIT $1`,
      [limit, minAgeSec],
    );
    return res.rows.map((r) => r.id);
  }

  // Stores one staged upload and deletes it in the same transaction (exactly once, whoever gets there first); null
  // when it is gone or another worker holds it. A failure leaves it staged with its error and a later attempt time.
  async ingestUpload(uploadId: string): Promise<(IngestResult & { groupId: string }) | null> {
    // One connection for the whole attempt (never a second one while holding it: a full pool would deadlock).
    const client = await this.pools.write.connect();
    let failure: Error | null = null;
    try {
      for (let pass = 0; ; pass++) {
        await client.query('BEGIN');
        const res = await client.query<{
          endpoint_id: string;
          group_id: string;
          received_at: Date;
          dropped_total: number | null;
          encoding: string;
          body: Buffer;
        }>(
          `SELECT endpoint_id, group_id, received_at, dropped_total, encoding, body FROM hook_run_uploads
            WHERE id = $1 FOR UPDATE SKIP LOCKED`,
          [uploadId],
        );
        const up = res.rows[0];
        if (!up) {
          await client.query('ROLLBACK');
          return null; // stored meanwhile, or another worker holds it
        }
        const base = {
          endpointId: up.endpoint_id,
          groupId: up.group_id,
          receivedAt: up.received_at.toISOString(),
          droppedTotal: up.dropped_total,
        };
        let rows: IngestRow[] | null = null;
        let unreadable: string | null = null;
        try {
          rows =
            up.encoding === 'rows'
              ? await decodeRows(up.body)
              : parseUpload(bodyOf(up.encoding, up.body), Number.MAX_SAFE_INTEGER);
        } catch (err) {
          unreadable = err instanceof ApiError ? err.message : `unreadable upload: ${(err as Error).message}`;
        }
        // Partitions are created outside the transaction (creating one locks hook_runs until commit), then again.
        const months = rows ? rows.map((r) => r.c.startedAt) : [];
        if (pass === 0 && this.unknownMonths(months)) {
          await client.query('ROLLBACK');
          await this.ensureMonths(months, client);
          continue;
        }
        let result: IngestResult;
        if (rows) result = await this.store(client, { ...base, rows });
        else {
          // The API validated it, so this should not happen: keep the whole upload as one quarantined entry.
          const kept = await this.quarantine(client, base, null, up.body, unreadable ?? 'unreadable', null);
          result = { inserted: 0, quarantined: kept ? 1 : 0, findings: kept ? 1 : 0 };
        }
        await client.query('DELETE FROM hook_run_uploads WHERE id = $1', [uploadId]);
        await client.query('COMMIT');
        return { ...result, groupId: up.group_id };
      }
    } catch (err) {
      failure = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release(failure && !isRecordError(failure) && !(failure as { code?: string }).code ? failure : undefined);
      if (failure) {
        await this.pools.write
          .query(
            `UPDATE hook_run_uploads SET attempts = attempts + 1, last_error = left($2, 2000),
               next_attempt_at = now() + make_interval(secs => least(60, power(2, least(attempts, 6))))
             WHERE id = $1`,
            [uploadId, failure.message],
          )
          .catch(() => undefined);
      }
    }
  }

  // Inserts a batch (duplicates ignored), then advances the endpoint's chain and records findings, in one transaction.
  async ingestBatch(job: IngestJobData): Promise<IngestResult> {
    await this.ensureMonths(job.rows.map((r) => r.c.startedAt));
    const client = await this.pools.write.connect();
    try {
      await client.query('BEGIN');
      const result = await this.store(client, job);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // The batch's rows, chain state and findings, inside the caller's transaction.
  private async store(client: pg.PoolClient, job: IngestJobData): Promise<IngestResult> {
    const minSeq = job.rows.reduce((m, r) => Math.min(m, r.c.seq), 1);
    await client.query('INSERT INTO hook_run_chains (endpoint_id, next_seq) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      job.endpointId,
      minSeq,
    ]);
    const chainRes = await client.query<{
      next_seq: number;
      last_hash: string | null;
      dropped_total: number;
      max_seq: number;
    }>('SELECT next_seq, last_hash, dropped_total, max_seq FROM hook_run_chains WHERE endpoint_id = $1 FOR UPDATE', [
      job.endpointId,
    ]);
    const chain = chainRes.rows[0]!;
    const written =
      job.rows.length > 0 ? await this.insertRows(client, job) : { seqs: [], stored: 0, quarantined: 0, flagged: 0 };
    const inserted = written.seqs;
    let findings = written.quarantined + written.flagged;
    const late = inserted.filter((s) => s < chain.next_seq);
    if (late.length > 0) await this.resolveFilledGaps(client, job.endpointId, Math.min(...late), Math.max(...late));
    // The spool's lifetime drop count (informational: each drop is recorded from the record carrying its gap).
    if (job.droppedTotal !== null && job.droppedTotal > chain.dropped_total) {
      await client.query('UPDATE hook_run_chains SET dropped_total = $2 WHERE endpoint_id = $1', [
        job.endpointId,
        job.droppedTotal,
      ]);
    }
    // The common case, an in-order batch with nothing stored ahead of it, is walked from memory (same rules).
    const inOrder =
      written.stored === job.rows.length &&
      chain.max_seq < chain.next_seq &&
      job.rows.every((r) => r.c.seq >= chain.next_seq);
    const receivedAt = new Date(job.receivedAt);
    const preloaded: WalkRow[] | undefined = inOrder
      ? job.rows
          .map((r) => ({
            seq: r.c.seq,
            prev_hash: r.c.prevHash,
            record_hash: r.c.recordHash,
            received_at: receivedAt,
            gap: r.gap,
          }))
          .sort((a, b) => a.seq - b.seq)
      : undefined;
    findings += await this.walk(
      client,
      job.endpointId,
      job.groupId,
      { nextSeq: chain.next_seq, lastHash: chain.last_hash },
      inserted.length ? Math.max(...inserted) : 0,
      preloaded,
    );
    return { inserted: written.stored, quarantined: written.quarantined, findings };
  }

  // Stores the batch's rows and their hourly counts; returns the sequence numbers now present (stored or quarantined).
  // COPY first (the common case: nothing stored yet); a record already stored makes it fail as a whole, and then the
  // rows go through INSERT … ON CONFLICT DO NOTHING, which skips the duplicates. When PostgreSQL refuses a record's
  // values, the rows go one by one: the refused ones are quarantined, never their neighbours.
  private async insertRows(
    client: pg.PoolClient,
    job: IngestJobData,
  ): Promise<{ seqs: number[]; stored: number; quarantined: number; flagged: number }> {
    let rows: IngestRow[] | null = null;
    await client.query('SAVEPOINT hw_copy');
    try {
      await pipeline(Readable.from(copyLines(job, job.rows)), client.query(copyFrom(COPY_SQL)));
      await client.query('RELEASE SAVEPOINT hw_copy');
      rows = job.rows;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== '23505' && !isRecordError(err)) throw err;
      await client.query('ROLLBACK TO SAVEPOINT hw_copy');
      if (code === '23505') {
        try {
          rows = await this.insertIgnoringDuplicates(client, job, job.rows);
          await client.query('RELEASE SAVEPOINT hw_copy');
        } catch (err2) {
          if (!isRecordError(err2)) throw err2;
          await client.query('ROLLBACK TO SAVEPOINT hw_copy');
        }
      }
    }
    let quarantined = 0;
    const kept: number[] = [];
    if (!rows) {
      rows = [];
      for (const row of job.rows) {
        await client.query('SAVEPOINT hw_row');
        try {
          rows.push(...(await this.insertIgnoringDuplicates(client, job, [row])));
          await client.query('RELEASE SAVEPOINT hw_row');
        } catch (err) {
          if (!isRecordError(err)) throw err;
          await client.query('ROLLBACK TO SAVEPOINT hw_row');
          const e = err as { message: string; code?: string };
          const line = Buffer.from(row.c.record, 'utf8');
          if (await this.quarantine(client, job, row, line, e.message, e.code ?? null)) quarantined++;
          kept.push(row.c.seq);
        }
      }
    }
    let flagged = 0;
    if (rows.length > 0) {
      await client.query(COUNTS_SQL, [job.groupId, ...hourlyCounts(rows)]);
      flagged = await this.checkClaims(client, job, rows);
    }
    return { seqs: [...rows.map((r) => r.c.seq), ...kept], stored: rows.length, quarantined, flagged };
  }

  // Adds the stored rows' per-endpoint counts for the revisions the endpoint was served (the rollout gate's input),
  // and flags the group's released revisions they claim that it was never served (`unserved_revision`: one open
  // finding per endpoint and revision, its count growing; those rows never enter the counts); returns findings created.
  private async checkClaims(client: pg.PoolClient, job: IngestJobData, rows: IngestRow[]): Promise<number> {
    if (!rows.some((r) => r.c.policyRevision !== null)) return 0;
    const res = await client.query<{ revision: number }>(
      'SELECT DISTINCT revision FROM endpoint_revisions WHERE endpoint_id = $1',
      [job.endpointId],
    );
    const served = new Set(res.rows.map((r) => r.revision));
    const counts = endpointCounts(rows).filter((c) => served.has(c.revision));
    if (counts.length > 0) {
      await client.query(ENDPOINT_COUNTS_SQL, [
        job.endpointId,
        job.groupId,
        counts.map((c) => c.revision),
        counts.map((c) => c.hour),
        counts.map((c) => c.ran),
        counts.map((c) => c.failed),
      ]);
    }
    // Only revisions the group released are flagged (any other claim names no release, so no gate can read it).
    const claimed = new Set(rows.map((r) => releaseRevisionOf(r.c.policyRevision)));
    const unserved = [...claimed].filter((r): r is number => r !== null && !served.has(r));
    if (unserved.length === 0) return 0;
    const released = await client.query<{ revision: number }>(
      'SELECT revision FROM releases WHERE group_id = $1 AND revision = ANY($2::int4[])',
      [job.groupId, unserved],
    );
    if (released.rowCount === 0) return 0;
    const flaggable = new Set(released.rows.map((r) => r.revision));
    const claims = unservedClaims(
      rows.filter((r) => flaggable.has(releaseRevisionOf(r.c.policyRevision) ?? 0)),
      served,
    );
    let created = 0;
    for (const claim of claims) {
      const updated = await client.query(UNSERVED_UPDATE_SQL, [
        job.endpointId,
        claim.revision,
        claim.count,
        claim.fromSeq,
        claim.toSeq,
      ]);
      if (updated.rowCount) continue;
      await this.addFinding(client, job.endpointId, job.groupId, 'unserved_revision', claim.fromSeq, claim.toSeq, {
        revision: claim.revision,
        count: claim.count,
        ...(claim.revisions > 1 ? { otherRevisions: claim.revisions } : {}),
        reason: 'records claim a policy revision this endpoint was never served; they never count for a rollout gate',
      });
      created++;
    }
    return created;
  }

  // INSERT … ON CONFLICT DO NOTHING of some rows; returns the rows actually inserted.
  private async insertIgnoringDuplicates(
    client: pg.PoolClient,
    job: IngestJobData,
    rows: IngestRow[],
  ): Promise<IngestRow[]> {
    const params: unknown[] = COLUMNS.map(([, , get]) => rows.map((r) => get(r, job)));
    const res = await client.query<{ id: string }>(INSERT_SQL, params);
    const ids = new Set(res.rows.map((r) => r.id));
    return rows.filter((r) => ids.delete(r.c.id.toLowerCase())); // each stored id once (PostgreSQL prints uuids in lower case)
  }

  // Keeps a refused record (or a whole unreadable upload when `row` is null) with its error, and reports it as a
  // `quarantined` finding; false when the same record was already kept.
  private async quarantine(
    client: pg.PoolClient,
    job: Omit<IngestJobData, 'rows'>,
    row: IngestRow | null,
    line: Buffer,
    error: string,
    sqlstate: string | null,
  ): Promise<boolean> {
    const hash = row?.c.recordHash ?? createHash('sha256').update(line).digest('hex');
    const res = await client.query(QUARANTINE_SQL, [
      job.endpointId,
      job.groupId,
      job.receivedAt,
      row?.c.id ?? null,
      row?.c.seq ?? null,
      row?.c.prevHash ?? null,
      hash,
      row?.gap ? JSON.stringify(row.gap) : null,
      line,
      error.slice(0, 2000),
      sqlstate,
    ]);
    if (!res.rowCount) return false;
    await this.addFinding(client, job.endpointId, job.groupId, 'quarantined', row?.c.seq ?? 0, row?.c.seq ?? 0, {
      recordId: row?.c.id ?? null,
      error: error.slice(0, 500),
      sqlstate,
      quarantineId: (res.rows[0] as { id: string }).id,
    });
    return true;
  }

  // Re-walks the chains that have records beyond a pending gap (a gap becomes a finding once its grace has passed).
  async reconcileChains(): Promise<number> {
    const pending = await this.pools.write.query<{ endpoint_id: string }>(
      'SELECT endpoint_id FROM hook_run_chains WHERE max_seq >= next_seq LIMIT 10000',
    );
    let findings = 0;
    for (const { endpoint_id: endpointId } of pending.rows) {
      const client = await this.pools.write.connect();
      try {
        await client.query('BEGIN');
        const res = await client.query<{ next_seq: number; last_hash: string | null }>(
          'SELECT next_seq, last_hash FROM hook_run_chains WHERE endpoint_id = $1 FOR UPDATE SKIP LOCKED',
          [endpointId],
        );
        const chain = res.rows[0];
        if (chain) {
          const group = await client.query<{ group_id: string }>('SELECT group_id FROM endpoints WHERE id = $1', [
            endpointId,
          ]);
          findings += await this.walk(
            client,
            endpointId,
            group.rows[0]?.group_id ?? null,
            { nextSeq: chain.next_seq, lastHash: chain.last_hash },
            0,
          );
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    }
    return findings;
  }

  // Advances the chain over stored records in sequence order: checks each link, reports gaps older than the grace.
  private async walk(
    client: pg.PoolClient,
    endpointId: string,
    groupId: string | null,
    state: ChainState,
    batchMaxSeq: number,
    preloaded?: WalkRow[],
  ): Promise<number> {
    let { nextSeq, lastHash } = state;
    let findings = 0;
    const graceMs = this.config.HOOK_RUN_GAP_GRACE_SEC * 1000;
    const now = Date.now();
    let stop = false;
    while (!stop) {
      const res = preloaded
        ? { rows: preloaded }
        : await client.query<WalkRow>(
            // Quarantined records are present too (kept, with their error): their links are checked like any other.
            `SELECT seq, prev_hash, record_hash, received_at, gap FROM (
               SELECT seq, prev_hash, record_hash, received_at, record->'gap' AS gap FROM hook_runs
                WHERE endpoint_id = $1 AND seq >= $2
               UNION ALL
               SELECT seq, prev_hash, record_hash, received_at, gap FROM hook_run_quarantine
                WHERE endpoint_id = $1 AND seq >= $2
             ) x ORDER BY seq LIMIT ${WALK_STEP}`,
            [endpointId, nextSeq],
          );
      for (const row of res.rows) {
        if (row.seq < nextSeq) continue; // a duplicate sequence number: already checked
        if (row.seq > nextSeq) {
          // The spool marks records it dropped (cap reached) on the next record it wrote: those are known drops.
          const gap = row.gap && row.gap.toSeq === row.seq - 1 ? row.gap : null;
          const droppedFrom = gap ? Math.max(gap.fromSeq, nextSeq) : null;
          const missingTo = droppedFrom !== null ? droppedFrom - 1 : row.seq - 1;
          if (missingTo >= nextSeq) {
            if (now - row.received_at.getTime() < graceMs) {
              stop = true; // a retry may still bring the missing records
              break;
            }
            await this.addFinding(client, endpointId, groupId, 'missing_range', nextSeq, missingTo, {
              count: missingTo - nextSeq + 1,
            });
            findings++;
            lastHash = null; // the link across a missing record cannot be checked
          }
          if (droppedFrom !== null) {
            await this.addFinding(client, endpointId, groupId, 'dropped', droppedFrom, row.seq - 1, {
              count: row.seq - droppedFrom,
              reason: 'spool size cap reached on the endpoint',
            });
            findings++; // dropped records never entered the chain: the link to the last written record still holds
          }
          nextSeq = row.seq;
        }
        if (lastHash !== null && row.prev_hash !== lastHash) {
          await this.addFinding(client, endpointId, groupId, 'broken_link', row.seq - 1, row.seq, {
            expectedPrevHash: lastHash,
            foundPrevHash: row.prev_hash,
          });
          findings++;
        }
        lastHash = row.record_hash;
        nextSeq = row.seq + 1;
      }
      if (preloaded || res.rows.length < WALK_STEP) stop = true;
    }
    await client.query(
      `UPDATE hook_run_chains SET next_seq = $2::int8, last_hash = $3, max_seq = GREATEST(max_seq, $4::int8, $2::int8 - 1),
         updated_at = now() WHERE endpoint_id = $1`,
      [endpointId, nextSeq, lastHash, batchMaxSeq],
    );
    return findings;
  }

  // Marks missing-range findings resolved once late records have filled them completely.
  private async resolveFilledGaps(client: pg.PoolClient, endpointId: string, lo: number, hi: number): Promise<void> {
    await client.query(
      `UPDATE hook_run_findings f SET resolved_at = now(),
         details = f.details || '{"resolution":"late records arrived"}'::jsonb
        WHERE f.endpoint_id = $1 AND f.kind = 'missing_range' AND f.resolved_at IS NULL
          AND f.from_seq <= $3 AND f.to_seq >= $2
          AND (SELECT count(DISTINCT h.seq) FROM hook_runs h
                WHERE h.endpoint_id = f.endpoint_id AND h.seq BETWEEN f.from_seq AND f.to_seq)
              = f.to_seq - f.from_seq + 1`,
      [endpointId, lo, hi],
    );
  }

  // Stores one finding.
  private async addFinding(
    client: pg.PoolClient,
    endpointId: string,
    groupId: string | null,
    kind: string,
    fromSeq: number,
    toSeq: number,
    details: Record<string, unknown>,
  ): Promise<void> {
    await client.query(
      `INSERT INTO hook_run_findings (id, endpoint_id, group_id, kind, from_seq, to_seq, details)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)`,
      [endpointId, groupId, kind, fromSeq, toSeq, JSON.stringify(details)],
    );
  }

  // True when a month of the batch has no partition known to this process yet.
  private unknownMonths(startedAt: string[]): boolean {
    return startedAt.some((s) => !this.knownMonths.has(monthStart(new Date(s)).getTime()));
  }

  // Makes sure every month the batch touches has its partition (cached per process).
  private async ensureMonths(startedAt: string[], db: pg.Pool | pg.PoolClient = this.pools.write): Promise<void> {
    const months = new Set<number>();
    for (const s of startedAt) months.add(monthStart(new Date(s)).getTime());
    for (const m of months) {
      if (this.knownMonths.has(m)) continue;
      await ensurePartition(db, new Date(m));
      this.knownMonths.add(m);
    }
  }
}

// The staged bytes as parse input.
function bodyOf(encoding: string, body: Buffer): UploadBody {
  if (encoding === 'json') return { kind: 'json', items: JSON.parse(body.toString('utf8')) as unknown[] };
  const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  return { kind: 'ndjson', text };
}
