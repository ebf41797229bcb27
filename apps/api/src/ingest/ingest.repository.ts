// Writes hook-run batches in bulk and keeps each endpoint's record chain (sequence + hash links) with its findings.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { PgPools } from '../database/pg-pools';
import { ensurePartition, monthStart } from '../database/partitions';
import type { IngestJobData } from './ingest.job';

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

// Column list of the bulk insert: name, array element type, value getter.
const COLUMNS: Array<[string, string, (row: IngestJobData['rows'][number]) => unknown]> = [
  ['id', 'uuid', (r) => r.c.id],
  ['started_at', 'timestamptz', (r) => r.c.startedAt],
  ['seq', 'int8', (r) => r.c.seq],
  ['prev_hash', 'text', (r) => r.c.prevHash],
  ['record_hash', 'text', (r) => r.c.recordHash],
  ['event', 'text', (r) => r.c.event],
  ['tool_name', 'text', (r) => r.c.toolName],
  ['hook_key', 'text', (r) => r.c.hookKey],
  ['hook_hash', 'text', (r) => r.c.hookHash],
  ['managed', 'bool', (r) => r.c.managed],
  ['status', 'text', (r) => r.c.status],
  ['skip_reason', 'text', (r) => r.c.skipReason],
  ['decision', 'text', (r) => r.c.decision],
  ['policy_revision', 'text', (r) => r.c.policyRevision],
  ['policy_digest', 'text', (r) => r.c.policyDigest],
  ['session_id', 'text', (r) => r.c.sessionId],
  ['turn_id', 'text', (r) => r.c.turnId],
  ['duration_ms', 'int4', (r) => r.c.durationMs],
  ['exit_code', 'int4', (r) => r.c.exitCode],
  ['signal', 'text', (r) => r.c.signal],
  ['timed_out', 'bool', (r) => r.c.timedOut],
  ['record', 'text', (r) => r.r],
];

// The batch's rows with duplicates skipped (the fallback when COPY meets a stored record); returns the inserted ids.
const INSERT_SQL = `INSERT INTO hook_runs (endpoint_id, group_id, received_at, ${COLUMNS.map(([n]) => n).join(', ')})
  SELECT $1::uuid, $2::uuid, $3::timestamptz, ${COLUMNS.map(([n]) => (n === 'record' ? 'u.record::jsonb' : `u.${n}`)).join(', ')}
  FROM unnest(${COLUMNS.map(([, t], i) => `$${i + 4}::${t}[]`).join(', ')}) AS u(${COLUMNS.map(([n]) => n).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING id`;

// COPY of a batch straight into hook_runs (PostgreSQL inserts its rows in bulk, about half the work of INSERT … SELECT
// per row); a duplicate record id aborts it and the batch takes the INSERT … ON CONFLICT path instead.
const COPY_SQL = `COPY hook_runs (endpoint_id, group_id, received_at, ${COLUMNS.map(([n]) => n).join(', ')}) FROM STDIN`;

// Appends the hourly counts of the rows actually inserted (append-only; see the hook_run_hourly migration).
const COUNTS_SQL = `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
  SELECT u.hour, $1::uuid, u.event, u.decision, u.status, u.rev, u.n
  FROM unnest($2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[])
    AS u(hour, event, decision, status, rev, n)`;

// One value in COPY's text format (\N for null; backslash, tab, newline and CR escaped).
function copyText(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  const text = typeof v === 'string' ? v : String(v);
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : text;
}

// The batch as COPY text lines.
function* copyLines(job: IngestJobData): Generator<string> {
  const head = `${job.endpointId}\t${job.groupId}\t${job.receivedAt}`;
  for (const row of job.rows)
    yield `${head}\t${COLUMNS.map(([, , get]) => copyText(get(row) as string | number | boolean | null)).join('\t')}\n`;
}

// Counts of the batch's rows per UTC hour, event, decision, status and policy revision (the rollup's key).
function hourlyCounts(rows: IngestJobData['rows']): unknown[][] {
  const counts = new Map<string, { k: string[]; n: number }>();
  for (const { c } of rows) {
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

export interface IngestResult {
  inserted: number;
  findings: number;
}

@Injectable()
export class IngestRepository {
  private readonly knownMonths = new Set<number>();

  constructor(
    private readonly pools: PgPools,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Inserts a batch (duplicates ignored), then advances the endpoint's chain and records findings, in one transaction.
  async ingestBatch(job: IngestJobData): Promise<IngestResult> {
    await this.ensureMonths(job.rows.map((r) => r.c.startedAt));
    const client = await this.pools.write.connect();
    try {
      await client.query('BEGIN');
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
      const inserted = job.rows.length > 0 ? await this.insertRows(client, job) : [];
      let findings = 0;
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
        inserted.length === job.rows.length &&
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
              gap: r.c.gap ?? null,
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
      await client.query('COMMIT');
      return { inserted: inserted.length, findings };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // Stores the batch's rows and their hourly counts; returns the sequence numbers actually inserted. COPY first (the
  // common case: nothing stored yet); a record already stored makes it fail as a whole, and then the rows go through
  // INSERT … ON CONFLICT DO NOTHING, which skips the duplicates.
  private async insertRows(client: pg.PoolClient, job: IngestJobData): Promise<number[]> {
    let rows = job.rows;
    await client.query('SAVEPOINT hw_copy');
    try {
      await pipeline(Readable.from(copyLines(job)), client.query(copyFrom(COPY_SQL)));
      await client.query('RELEASE SAVEPOINT hw_copy');
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err;
      await client.query('ROLLBACK TO SAVEPOINT hw_copy');
      const params: unknown[] = [job.endpointId, job.groupId, job.receivedAt];
      for (const [, , get] of COLUMNS) params.push(job.rows.map(get));
      const res = await client.query<{ id: string }>(INSERT_SQL, params);
      const ids = new Set(res.rows.map((r) => r.id));
      rows = job.rows.filter((r) => ids.delete(r.c.id.toLowerCase())); // each stored id once (PostgreSQL prints uuids in lower case)
    }
    if (rows.length > 0) await client.query(COUNTS_SQL, [job.groupId, ...hourlyCounts(rows)]);
    return rows.map((r) => r.c.seq);
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
            `SELECT seq, prev_hash, record_hash, received_at, record->'gap' AS gap FROM hook_runs
              WHERE endpoint_id = $1 AND seq >= $2 ORDER BY seq LIMIT ${WALK_STEP}`,
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

  // Makes sure every month the batch touches has its partition (cached per process).
  private async ensureMonths(startedAt: string[]): Promise<void> {
    const months = new Set<number>();
    for (const s of startedAt) months.add(monthStart(new Date(s)).getTime());
    for (const m of months) {
      if (this.knownMonths.has(m)) continue;
      await ensurePartition(this.pools.write, new Date(m));
      this.knownMonths.add(m);
    }
  }
}
