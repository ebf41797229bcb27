// Streaming's database access: destinations (every change audited in its transaction), their per-stream cursors, and
// the reads of each stream after its rows committed. Rows written by transactions are read in the order of the writing
// transaction id (stream_xid) and only below the oldest transaction still running (the horizon), so a cursor never
// passes a row that commits later; the audit log is read by its seq (its appends are serialized until commit).
import { Inject, Injectable } from '@nestjs/common';
import type { Prisma, StreamDestination } from '@prisma/client';
import pg from 'pg';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import type { AuditDetailsOf } from '../audit-log/audit-details';
import { appendAudit, type AuditChange, type AuditContext } from '../audit-log/audit-log.writer';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';
import { hookRunFilterConditions, hookRunSeverity, type StreamEvent } from './stream-events';
import type { HookRunFilter, StreamName } from './streaming.dto';

const NIL = '00000000-0000-0000-0000-000000000000';

/** A cursor position: the key of the last event delivered (the stream's own key shape). */
export type Position = Record<string, string | number>;

/** A read step: events after the position (below the horizon) and where the cursor goes when all are delivered. */
export interface ReadResult {
  events: Array<{ event: Omit<StreamEvent, 'sequence'>; position: Position }>;
  /** Where the cursor may move once every event of `events` is delivered (past filtered-out rows too). */
  end: Position;
}

/** How each stream is read: its query, the key of a row, the first position, the oldest pending time. */
interface Source {
  read(pools: PgPools, pos: Position, horizon: string, limit: number, filter: HookRunFilter): Promise<ReadResult>;
  start(pools: PgPools, horizon: string): Promise<Position>;
  /** The commit time of the oldest event after `pos` (null: none). */
  oldestPending(pools: PgPools, pos: Position, filter: HookRunFilter): Promise<Date | null>;
  /** The position just before the first event committed at or after `time`. */
  beforeTime(pools: PgPools, time: Date): Promise<Position>;
}

type Row = Record<string, unknown>;
// A severity, typed.
const severityOf = (s: StreamEvent['severity']): StreamEvent['severity'] => s;
const iso = (d: unknown): string => (d instanceof Date ? d.toISOString() : String(d));

// The WHERE conditions of a hook-run filter, with their parameters numbered from `from`.
function filterSql(filter: HookRunFilter, from: number): { sql: string; params: unknown[] } {
  const conds = hookRunFilterConditions(filter);
  return {
    sql: conds.map((c, i) => ` AND h.${c.column} = ANY($${from + i}::${c.type}[])`).join(''),
    params: conds.map((c) => c.values),
  };
}

// hook_runs by (stream_xid, endpoint_id, seq, id).
const hookRuns: Source = {
  async read(pools, pos, horizon, limit, filter) {
    const f = filterSql(filter, 7);
    const res = await pools.write.query<Row>(
      `SELECT h.stream_xid::text AS x, h.endpoint_id, h.seq, h.id, h.started_at, h.received_at, h.group_id, h.event,
              h.tool_name, h.tool_command, h.hook_key, h.hook_hash, h.managed, h.status, h.skip_reason, h.decision,
              h.policy_revision, h.policy_digest, h.session_id, h.turn_id, h.duration_ms, h.exit_code, h.signal,
              h.timed_out, h.escaped, h.prev_hash, h.record_hash, e.hostname
         FROM hook_runs h LEFT JOIN endpoints e ON e.id = h.endpoint_id
        WHERE (h.stream_xid, h.endpoint_id, h.seq, h.id) > ($1::xid8, $2::uuid, $3::int8, $4::uuid)
          AND h.stream_xid < $5::xid8${f.sql}
        ORDER BY h.stream_xid, h.endpoint_id, h.seq, h.id LIMIT $6`,
      [pos.x, pos.e, pos.s, pos.i, horizon, limit, ...f.params],
    );
    const events = res.rows.map((r) => ({
      position: { x: String(r.x), e: String(r.endpoint_id), s: Number(r.seq), i: String(r.id) },
      event: {
        id: `hookrun:${String(r.endpoint_id)}:${String(r.id)}`,
        stream: 'hookRuns' as const,
        time: iso(r.started_at),
        type: 'hook_run',
        severity: hookRunSeverity(String(r.status), (r.decision as string | null) ?? null),
        endpointId: String(r.endpoint_id),
        data: {
          recordId: r.id,
          seq: Number(r.seq),
          endpointId: r.endpoint_id,
          hostname: r.hostname ?? null,
          groupId: r.group_id,
          startedAt: iso(r.started_at),
          receivedAt: iso(r.received_at),
          event: r.event,
          toolName: r.tool_name,
          toolCommand: r.tool_command,
          hookKey: r.hook_key,
          hookHash: r.hook_hash,
          managed: r.managed,
          status: r.status,
          skipReason: r.skip_reason,
          decision: r.decision,
          policyRevision: r.policy_revision,
          policyDigest: r.policy_digest,
          sessionId: r.session_id,
          turnId: r.turn_id,
          durationMs: r.duration_ms,
          exitCode: r.exit_code,
          signal: r.signal,
          timedOut: r.timed_out,
          escaped: r.escaped,
          prevHash: r.prev_hash,
          recordHash: r.record_hash,
        },
      },
    }));
    const end = events.length < limit ? { x: horizon, e: NIL, s: -1, i: NIL } : events[events.length - 1]!.position;
    return { events, end };
  },
  start(_pools, horizon) {
    return Promise.resolve({ x: horizon, e: NIL, s: -1, i: NIL });
  },
  async oldestPending(pools, pos, filter) {
    const f = filterSql(filter, 5);
    const res = await pools.write.query<{ t: Date }>(
      `SELECT h.received_at AS t FROM hook_runs h
        WHERE (h.stream_xid, h.endpoint_id, h.seq, h.id) > ($1::xid8, $2::uuid, $3::int8, $4::uuid)${f.sql}
        ORDER BY h.stream_xid, h.endpoint_id, h.seq, h.id LIMIT 1`,
      [pos.x, pos.e, pos.s, pos.i, ...f.params],
    );
    return res.rows[0]?.t ?? null;
  },
  async beforeTime(pools, time) {
    const res = await pools.write.query<{ x: string | null }>(
      `SELECT min(stream_xid::text::numeric)::text AS x FROM hook_runs WHERE received_at >= $1`,
      [time],
    );
    return { x: res.rows[0]?.x ?? (await currentHorizon(pools)), e: NIL, s: -1, i: NIL };
  },
};

// hook_run_findings by (stream_xid, id).
const findings: Source = {
  async read(pools, pos, horizon, limit) {
    const res = await pools.write.query<Row>(
      `SELECT stream_xid::text AS x, id, endpoint_id, group_id, kind, from_seq, to_seq, details, detected_at
         FROM hook_run_findings WHERE (stream_xid, id) > ($1::xid8, $2::uuid) AND stream_xid < $3::xid8
        ORDER BY stream_xid, id LIMIT $4`,
      [pos.x, pos.i, horizon, limit],
    );
    const events = res.rows.map((r) => ({
      position: { x: String(r.x), i: String(r.id) },
      event: {
        id: `finding:${String(r.id)}`,
        stream: 'findings' as const,
        time: iso(r.detected_at),
        type: 'finding',
        severity: 'warning' as const,
        endpointId: String(r.endpoint_id),
        data: {
          findingId: r.id,
          endpointId: r.endpoint_id,
          groupId: r.group_id,
          kind: r.kind,
          fromSeq: r.from_seq === null ? null : Number(r.from_seq),
          toSeq: r.to_seq === null ? null : Number(r.to_seq),
          details: r.details,
          detectedAt: iso(r.detected_at),
        },
      },
    }));
    const end = events.length < limit ? { x: horizon, i: NIL } : events[events.length - 1]!.position;
    return { events, end };
  },
  start(_pools, horizon) {
    return Promise.resolve({ x: horizon, i: NIL });
  },
  async oldestPending(pools, pos) {
    const res = await pools.write.query<{ t: Date }>(
      `SELECT detected_at AS t FROM hook_run_findings WHERE (stream_xid, id) > ($1::xid8, $2::uuid)
        ORDER BY stream_xid, id LIMIT 1`,
      [pos.x, pos.i],
    );
    return res.rows[0]?.t ?? null;
  },
  async beforeTime(pools, time) {
    const res = await pools.write.query<{ x: string | null }>(
      `SELECT min(stream_xid::text::numeric)::text AS x FROM hook_run_findings WHERE detected_at >= $1`,
      [time],
    );
    return { x: res.rows[0]?.x ?? (await currentHorizon(pools)), i: NIL };
  },
};

// audit_log by seq (optionally only the entries about releases).
function auditSource(stream: 'auditLog' | 'releases'): Source {
  const only = stream === 'releases' ? ` AND a.target_type = 'release'` : '';
  return {
    async read(pools, pos, _horizon, limit) {
      const res = await pools.write.query<Row>(
        `SELECT a.seq, a.id, a.at, a.actor_id, a.actor_name, a.role, a.action, a.target_type, a.target_id,
                a.before_digest, a.after_digest, a.details, a.request_id, a.client_ip, a.actor_person, a.prev_hash, a.hash,
                r.group_id AS r_group_id, r.revision AS r_revision, r.status AS r_status, r.paused_reason AS r_paused
           FROM audit_log a LEFT JOIN releases r ON a.target_type = 'release' AND r.id::text = a.target_id
          WHERE a.seq > $1${only} ORDER BY a.seq LIMIT $2`,
        [pos.s, limit],
      );
      const events = res.rows.map((r) => {
        const release = r.target_type === 'release';
        return {
          position: { s: Number(r.seq) },
          event: {
            id: `audit:${Number(r.seq)}`,
            stream,
            time: iso(r.at),
            type: stream === 'releases' ? 'release' : 'audit',
            severity: severityOf(r.action === 'release.auto_pause' ? 'warning' : 'info'),
            endpointId: null,
            data: {
              auditSeq: Number(r.seq),
              auditId: r.id,
              at: iso(r.at),
              actorId: r.actor_id,
              actorName: r.actor_name,
              role: r.role,
              person: r.actor_person ?? null,
              action: r.action,
              targetType: r.target_type,
              targetId: r.target_id,
              beforeDigest: r.before_digest,
              afterDigest: r.after_digest,
              details: r.details,
              requestId: r.request_id,
              clientIp: r.client_ip,
              prevHash: r.prev_hash,
              hash: r.hash,
              ...(release
                ? {
                    release: {
                      groupId: r.r_group_id ?? null,
                      revision: r.r_revision ?? null,
                      status: r.r_status ?? null,
                      pausedReason: r.r_paused ?? null,
                    },
                  }
                : {}),
            },
          },
        };
      });
      let end: Position = events.length > 0 ? events[events.length - 1]!.position : pos;
      if (events.length < limit) end = await auditStart(pools);
      if (Number(end.s) < Number(pos.s)) end = pos;
      return { events, end };
    },
    start: (pools) => auditStart(pools),
    async oldestPending(pools, pos) {
      const res = await pools.write.query<{ t: Date }>(
        `SELECT a.at AS t FROM audit_log a WHERE a.seq > $1${only} ORDER BY a.seq LIMIT 1`,
        [pos.s],
      );
      return res.rows[0]?.t ?? null;
    },
    async beforeTime(pools, time) {
      const res = await pools.write.query<{ s: number | null }>(
        `SELECT min(seq) - 1 AS s FROM audit_log WHERE at >= $1`,
        [time],
      );
      return res.rows[0]?.s === null || res.rows[0]?.s === undefined ? auditStart(pools) : { s: res.rows[0].s };
    },
  };
}

// The newest audit seq (every lower one is committed: appends are serialized until their commit).
async function auditStart(pools: PgPools): Promise<Position> {
  const res = await pools.write.query<{ s: number }>('SELECT coalesce(max(seq), 0)::int8 AS s FROM audit_log');
  return { s: res.rows[0]!.s };
}

// alert_events by (stream_xid, seq).
const alerts: Source = {
  async read(pools, pos, horizon, limit) {
    const res = await pools.write.query<Row>(
      `SELECT stream_xid::text AS x, seq, alert_id, kind, at, doc FROM alert_events
        WHERE (stream_xid, seq) > ($1::xid8, $2::int8) AND stream_xid < $3::xid8 ORDER BY stream_xid, seq LIMIT $4`,
      [pos.x, pos.s, horizon, limit],
    );
    const events = res.rows.map((r) => ({
      position: { x: String(r.x), s: Number(r.seq) },
      event: {
        id: `alert:${Number(r.seq)}`,
        stream: 'alerts' as const,
        time: iso(r.at),
        type: `alert.${String(r.kind)}`,
        severity: severityOf(r.kind === 'fired' ? 'warning' : 'info'),
        endpointId: null,
        data: r.doc as Record<string, unknown>,
      },
    }));
    const end = events.length < limit ? { x: horizon, s: 0 } : events[events.length - 1]!.position;
    return { events, end };
  },
  start(_pools, horizon) {
    return Promise.resolve({ x: horizon, s: 0 });
  },
  async oldestPending(pools, pos) {
    const res = await pools.write.query<{ t: Date }>(
      `SELECT at AS t FROM alert_events WHERE (stream_xid, seq) > ($1::xid8, $2::int8) ORDER BY stream_xid, seq LIMIT 1`,
      [pos.x, pos.s],
    );
    return res.rows[0]?.t ?? null;
  },
  async beforeTime(pools, time) {
    const res = await pools.write.query<{ x: string | null }>(
      `SELECT min(stream_xid::text::numeric)::text AS x FROM alert_events WHERE at >= $1`,
      [time],
    );
    return { x: res.rows[0]?.x ?? (await currentHorizon(pools)), s: 0 };
  },
};

/** Every stream's source. */
const SOURCES = {
  hookRuns,
  auditLog: auditSource('auditLog'),
  findings,
  releases: auditSource('releases'),
  alerts,
} satisfies Record<StreamName, Source>;

// The stream horizon: every row written by a transaction with a lower id is committed (or never will be). It is the
// lowest id of a transaction still running in this database (only those write its rows), else the next id to be
// assigned; read in that order (the next id first), so a transaction that gets its id in between gets one above it.
// Transactions of other databases on the same server (a CREATE DATABASE, another application's long transaction)
// do not hold it back. Where the sessions of this database are not all visible to this role, the server-wide
// oldest running transaction is used instead.
async function currentHorizon(pools: PgPools): Promise<string> {
  const next = await pools.write.query<{ x: string; xmin: string }>(
    'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
  );
  const { x, xmin } = next.rows[0]!;
  const running = await pools.write.query<{ low: string | null; hidden: boolean }>(
    `SELECT min(backend_xid::text::int8)::text AS low, bool_or(query = '<insufficient privilege>') AS hidden
       FROM (SELECT backend_xid, query FROM pg_stat_activity WHERE datname = current_database()
             UNION ALL SELECT transaction, '' FROM pg_prepared_xacts WHERE database = current_database()) t
      WHERE backend_xid IS NOT NULL OR query = '<insufficient privilege>'`,
  );
  const r = running.rows[0];
  if (r?.hidden) return xmin;
  if (!r?.low) return x;
  // backend_xid is the low 32 bits: put it in the epoch of `x` (or the one before when it is above x's low bits).
  const full = BigInt(x);
  const epochBase = full - (full % 4294967296n);
  let low = epochBase + BigInt(r.low);
  if (low > full) low -= 4294967296n;
  const h = low < full ? low : full;
  return (h < BigInt(xmin) ? BigInt(xmin) : h).toString();
}

/** A cursor row. */
export interface CursorRow {
  stream: StreamName;
  position: Position;
  deliveredCount: number;
  deliveredAt: Date | null;
}

/** The changeable columns of a destination. */
export type DestinationData = Omit<
  Prisma.StreamDestinationUncheckedCreateInput,
  'id' | 'createdAt' | 'updatedAt' | 'createdBy' | 'deliveredCount'
>;

@Injectable()
export class StreamingRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pools: PgPools,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Every destination, oldest first.
  list(): Promise<StreamDestination[]> {
    return this.prisma.streamDestination.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  // One destination, or null.
  find(id: string): Promise<StreamDestination | null> {
    return this.prisma.streamDestination.findUnique({ where: { id } });
  }

  // True when another destination has this name.
  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    return (
      (await this.prisma.streamDestination.count({ where: { name, ...(exceptId ? { id: { not: exceptId } } : {}) } })) >
      0
    );
  }

  // Creates a destination with cursors at the current end of each of its streams (new events only), audited.
  async create(
    id: string,
    data: DestinationData,
    streams: StreamName[],
    ctx: AuditContext,
    audit: Omit<Extract<AuditChange, { action: 'stream_destination.create' }>, 'action' | 'targetType'>,
  ): Promise<StreamDestination> {
    const horizon = await currentHorizon(this.pools);
    const starts = await Promise.all(
      streams.map(async (s) => [s, await SOURCES[s].start(this.pools, horizon)] as const),
    );
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.streamDestination.create({ data: { id, ...data, createdBy: ctx.actorName } });
      for (const [stream, position] of starts) {
        await tx.streamCursor.create({ data: { destinationId: id, stream, position } });
      }
      await appendAudit(tx, ctx, { action: 'stream_destination.create', targetType: 'stream_destination', ...audit });
      return row;
    });
  }

  // Changes a destination (cursors of newly chosen streams start at their current end), audited with `action`.
  async update(
    id: string,
    data: Partial<DestinationData>,
    addedStreams: StreamName[],
    ctx: AuditContext,
    change: Extract<AuditChange, { targetType: 'stream_destination' }>,
  ): Promise<StreamDestination> {
    const horizon = await currentHorizon(this.pools);
    const starts = await Promise.all(
      addedStreams.map(async (s) => [s, await SOURCES[s].start(this.pools, horizon)] as const),
    );
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.streamDestination.update({ where: { id }, data: { ...data, updatedAt: new Date() } });
      for (const [stream, position] of starts) {
        await tx.streamCursor.upsert({
          where: { destinationId_stream: { destinationId: id, stream } },
          create: { destinationId: id, stream, position },
          update: {},
        });
      }
      await appendAudit(tx, ctx, change);
      return row;
    });
  }

  // Deletes a destination and its cursors, audited.
  async delete(id: string, ctx: AuditContext, details: AuditDetailsOf<'stream_destination.delete'>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.streamDestination.delete({ where: { id } });
      await appendAudit(tx, ctx, {
        action: 'stream_destination.delete',
        targetType: 'stream_destination',
        targetId: id,
        details,
      });
    });
  }

  // Moves cursors back (replay): every stream to just before `fromTime`, one stream to just before an event, or none
  // (only the dead letter is cleared); the destination becomes active again. Audited.
  async replay(
    id: string,
    moves: Array<{ stream: StreamName; position: Position }>,
    ctx: AuditContext,
    details: AuditDetailsOf<'stream_destination.replay'>,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      for (const m of moves) {
        await tx.streamCursor.upsert({
          where: { destinationId_stream: { destinationId: id, stream: m.stream } },
          create: { destinationId: id, stream: m.stream, position: m.position },
          update: { position: m.position, updatedAt: new Date() },
        });
      }
      await tx.streamDestination.update({
        where: { id },
        data: { state: 'active', attempts: 0, failingSince: null, nextAttemptAt: null, deadLetteredAt: null },
      });
      await appendAudit(tx, ctx, {
        action: 'stream_destination.replay',
        targetType: 'stream_destination',
        targetId: id,
        details,
      });
    });
  }

  // The positions just before the first event of each stream committed at or after `time`.
  positionBeforeTime(stream: StreamName, time: Date): Promise<Position> {
    return SOURCES[stream].beforeTime(this.pools, time);
  }

  // The position just before one event (by its id's parts), or null when there is no such event.
  async positionBeforeEvent(
    stream: StreamName,
    ref: { endpointId?: string; recordId?: string; seq?: number; id?: string },
  ): Promise<Position | null> {
    if (stream === 'hookRuns') {
      const res = await this.pools.write.query<{ x: string; seq: number }>(
        `SELECT stream_xid::text AS x, seq FROM hook_runs WHERE id = $1 AND endpoint_id = $2 LIMIT 1`,
        [ref.recordId, ref.endpointId],
      );
      const r = res.rows[0];
      // Just before (x, endpoint, seq, id): the same transaction and endpoint, one sequence number lower.
      return r ? { x: r.x, e: ref.endpointId!, s: r.seq - 1, i: 'ffffffff-ffff-ffff-ffff-ffffffffffff' } : null;
    }
    if (stream === 'findings') {
      const res = await this.pools.write.query<{ x: string }>(
        'SELECT stream_xid::text AS x FROM hook_run_findings WHERE id = $1',
        [ref.id],
      );
      const r = res.rows[0];
      return r ? { x: r.x, i: NIL } : null;
    }
    if (stream === 'alerts') {
      const res = await this.pools.write.query<{ x: string }>(
        'SELECT stream_xid::text AS x FROM alert_events WHERE seq = $1',
        [ref.seq],
      );
      const r = res.rows[0];
      return r ? { x: r.x, s: ref.seq! - 1 } : null;
    }
    const res = await this.pools.write.query('SELECT 1 FROM audit_log WHERE seq = $1', [ref.seq]);
    return res.rowCount ? { s: ref.seq! - 1 } : null;
  }

  // A destination's cursors.
  async cursors(id: string): Promise<CursorRow[]> {
    const rows = await this.prisma.streamCursor.findMany({ where: { destinationId: id }, orderBy: { stream: 'asc' } });
    return rows.map((r) => ({
      stream: r.stream as StreamName,
      position: r.position as Position,
      deliveredCount: Number(r.deliveredCount),
      deliveredAt: r.deliveredAt,
    }));
  }

  // The commit time of the oldest event of a stream not delivered yet (null: caught up).
  oldestPending(stream: StreamName, position: Position, filter: HookRunFilter): Promise<Date | null> {
    return SOURCES[stream].oldestPending(this.pools, position, filter);
  }

  // ---- the worker's side ----

  /** The current horizon (see the file comment). */
  horizon(): Promise<string> {
    return currentHorizon(this.pools);
  }

  // Reads up to `limit` events of a stream after `position`, below `horizon`.
  read(
    stream: StreamName,
    position: Position,
    horizon: string,
    limit: number,
    filter: HookRunFilter,
  ): Promise<ReadResult> {
    return SOURCES[stream].read(this.pools, position, horizon, limit, filter);
  }

  // Creates a missing cursor at the stream's current end.
  async ensureCursor(id: string, stream: StreamName): Promise<CursorRow> {
    const position = await SOURCES[stream].start(this.pools, await currentHorizon(this.pools));
    const row = await this.prisma.streamCursor.upsert({
      where: { destinationId_stream: { destinationId: id, stream } },
      create: { destinationId: id, stream, position },
      update: {},
    });
    return {
      stream,
      position: row.position as Position,
      deliveredCount: Number(row.deliveredCount),
      deliveredAt: row.deliveredAt,
    };
  }

  // Moves a cursor from `from` to `to` after `delivered` events were accepted, and records the success on the
  // destination; false when the cursor moved meanwhile (a replay): nothing is changed then.
  async advance(id: string, stream: StreamName, from: Position, to: Position, delivered: number): Promise<boolean> {
    const client = await this.pools.write.connect();
    try {
      await client.query('BEGIN');
      const res = await client.query(
        `UPDATE stream_cursors SET position = $3::jsonb, delivered_count = delivered_count + $4,
                delivered_at = CASE WHEN $4 > 0 THEN now() ELSE delivered_at END, updated_at = now()
          WHERE destination_id = $1 AND stream = $2 AND position = $5::jsonb`,
        [id, stream, JSON.stringify(to), delivered, JSON.stringify(from)],
      );
      if (res.rowCount === 0) {
        await client.query('ROLLBACK');
        return false;
      }
      if (delivered > 0) {
        await client.query(
          `UPDATE stream_destinations SET state = 'active', attempts = 0, failing_since = NULL, next_attempt_at = NULL,
                  last_delivered_at = now(), delivered_count = delivered_count + $2 WHERE id = $1 AND state <> 'dead_letter'`,
          [id, delivered],
        );
      }
      await client.query('COMMIT');
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  // Records a successful attempt that delivered nothing new (a failing destination that answers again).
  async recovered(id: string): Promise<void> {
    await this.pools.write.query(
      `UPDATE stream_destinations SET state = 'active', attempts = 0, failing_since = NULL, next_attempt_at = NULL
        WHERE id = $1 AND state = 'failing'`,
      [id],
    );
  }

  // Records a failed attempt: the reason, the next attempt time, and dead_letter when it has failed long enough.
  async failed(id: string, reason: string, retryInMs: number, deadLetter: boolean): Promise<void> {
    await this.pools.write.query(
      `UPDATE stream_destinations SET attempts = attempts + 1, failing_since = coalesce(failing_since, now()),
              last_error = left($2, 2000), last_error_at = now(),
              next_attempt_at = now() + make_interval(secs => $3::float8 / 1000),
              state = CASE WHEN $4 THEN 'dead_letter' ELSE 'failing' END,
              dead_lettered_at = CASE WHEN $4 THEN now() ELSE NULL END
        WHERE id = $1 AND state <> 'dead_letter'`,
      [id, reason, retryInMs, deadLetter],
    );
  }

  // Destinations whose audit-log delivery admin writes depend on and that cannot deliver now.
  async blockingAuditDestinations(): Promise<Array<{ name: string; state: string; lastError: string | null }>> {
    const res = await this.pools.write.query<{ name: string; state: string; last_error: string | null }>(
      `SELECT name, state, last_error FROM stream_destinations
        WHERE enabled AND require_audit_delivery AND streams ? 'auditLog' AND state <> 'active' ORDER BY name`,
    );
    return res.rows.map((r) => ({ name: r.name, state: r.state, lastError: r.last_error }));
  }

  // Takes the delivery lock of a destination (a session advisory lock on a connection of its own, so a worker that
  // dies releases it with its connection); null when another worker holds it.
  async tryLock(id: string): Promise<DeliveryLock | null> {
    const client = new pg.Client({ connectionString: this.config.DATABASE_URL });
    let held = true;
    client.on('error', () => {
      held = false;
    });
    client.on('end', () => {
      held = false;
    });
    await client.connect();
    try {
      const res = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
        `stream:${id}`,
      ]);
      if (!res.rows[0]?.ok) {
        await client.end();
        return null;
      }
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    return {
      held: () => held,
      release: async () => {
        held = false;
        await client.end().catch(() => undefined);
      },
    };
  }
}

/** The delivery lock of one destination. */
export interface DeliveryLock {
  /** False once its connection is gone (the lock with it). */
  held(): boolean;
  release(): Promise<void>;
}
