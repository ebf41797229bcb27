// Writes hook-run batches in bulk and keeps each endpoint's record chain (sequence + hash links) with its findings.
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { PgPools } from '../database/pg-pools';
import { HOUR_SQL } from '../database/hourly-counts';
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

// The batch's rows (duplicates skipped) and, in the same statement, the hourly counts of the rows actually inserted
// (appended, in a stable order; see the hook_run_hourly migration).
const INSERT_SQL = `WITH ins AS (
  INSERT INTO hook_runs (endpoint_id, group_id, received_at, ${COLUMNS.map(([n]) => n).join(', ')})
  SELECT $1::uuid, $2::uuid, $3::timestamptz, ${COLUMNS.map(([n]) => (n === 'record' ? 'u.record::jsonb' : `u.${n}`)).join(', ')}
  FROM unnest(${COLUMNS.map(([, t], i) => `$${i + 4}::${t}[]`).join(', ')}) AS u(${COLUMNS.map(([n]) => n).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING seq, started_at, event, decision, status, policy_revision
), counts AS (
  INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n)
  SELECT ${HOUR_SQL('started_at')}, $2::uuid, event, coalesce(decision, ''), status, coalesce(policy_revision, ''),
         count(*)
  FROM ins GROUP BY 1, 3, 4, 5, 6
)
SELECT seq FROM ins`;

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
      let inserted: number[] = [];
      if (job.rows.length > 0) {
        const params: unknown[] = [job.endpointId, job.groupId, job.receivedAt];
        for (const [, , get] of COLUMNS) params.push(job.rows.map(get));
        const res = await client.query<{ seq: number }>(INSERT_SQL, params);
        inserted = res.rows.map((r) => r.seq);
      }
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
