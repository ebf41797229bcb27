// Auditor reads of hook_runs on the read pool: keyset pages, one record, COPY-streamed exports, aggregates.
import { Injectable } from '@nestjs/common';
import { type Readable, Transform } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import { ReadPrismaService } from '../prisma/prisma.service';
import { PgPools } from '../database/pg-pools';
import type { Finding, HookRunFilters } from './hook-runs.dto';
import type { HookRunRow } from '../database/hook-run-columns';
import { decodeDeep, ESCAPE_MARK } from '../database/storable-text';
import {
  CSV_SELECT,
  type Keyset,
  pageQuery,
  RUN_COLUMNS,
  SqlParams,
  statsQuery,
  type StatsRow,
  whereOf,
  enforcedUnless,
  whereSql,
} from './hook-runs.sql';

export type { HookRunRow };

@Injectable()
export class HookRunsRepository {
  constructor(
    private readonly pools: PgPools,
    /** Auditor reads (findings): on the read pool. */
    private readonly prisma: ReadPrismaService,
  ) {}

  // One page, newest first, strictly after the keyset position when given; fetches limit+1 to know if more exist.
  async page(filters: HookRunFilters, after: Keyset | null, limit: number): Promise<HookRunRow[]> {
    const q = pageQuery(filters, after, limit);
    return (await this.pools.read.query<HookRunRow>(q.text, q.values)).rows;
  }

  // The records with this id (any partition; of one endpoint when given): one, or a few when endpoints collide.
  async byId(id: string, endpointId?: string): Promise<HookRunRow[]> {
    const res = await this.pools.read.query<HookRunRow>(
      `SELECT ${RUN_COLUMNS} FROM hook_runs WHERE id = $1::uuid AND ($2::uuid IS NULL OR endpoint_id = $2::uuid)
        ORDER BY started_at, endpoint_id LIMIT 10`,
      [id, endpointId ?? null],
    );
    return res.rows;
  }

  // Streams the filtered rows straight from PostgreSQL (COPY TO STDOUT): constant memory, backpressure end to end.
  async exportStream(filters: HookRunFilters, format: 'ndjson' | 'csv'): Promise<Readable> {
    const client = await this.pools.read.connect();
    const p = new SqlParams((text) => client.escapeLiteral(text));
    const where = whereSql(whereOf(filters, p));
    // NDJSON: one jsonb per line; CSV quoting with control characters that never occur in jsonb text keeps it verbatim.
    const sql =
      format === 'ndjson'
        ? `COPY (SELECT record FROM hook_runs ${where} ORDER BY started_at, id) TO STDOUT
             WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`
        : `COPY (SELECT ${CSV_SELECT} FROM hook_runs ${where} ORDER BY started_at, id) TO STDOUT WITH (FORMAT csv, HEADER)`;
    const copy = client.query(copyTo(sql));
    // NDJSON gives back what the endpoint sent: the rare records stored escaped are decoded line by line.
    const stream = format === 'ndjson' ? copy.pipe(decodeEscapedLines()) : copy;
    copy.on('error', (err: Error) => stream.destroy(err));
    let released = false;
    const release = (err?: Error): void => {
      if (released) return;
      released = true;
      // A connection abandoned mid-COPY cannot be reused: destroy it (the server cancels the query).
      client.release(err ?? (copy.readableEnded ? undefined : new Error('export aborted')));
    };
    copy.on('end', () => release());
    copy.on('error', (err: Error) => release(err));
    stream.on('close', () => {
      if (!copy.readableEnded) copy.destroy();
      release();
    });
    return stream;
  }

  // Counts per time bucket by event, decision and status (hourly rollup where it can answer; see statsQuery).
  async stats(filters: HookRunFilters, bucket: 'hour' | 'day'): Promise<StatsRow[]> {
    const q = statsQuery(filters, bucket);
    return (await this.pools.read.query<StatsRow>(q.text, q.values)).rows;
  }

  // The hooks with the most failures (failed/timed out) or blocks (deny/block decisions).
  async top(
    filters: HookRunFilters,
    kind: 'failing' | 'blocking',
    limit: number,
  ): Promise<Array<{ hook_key: string; hook_hash: string | null; n: number; endpoints: number; last_at: Date }>> {
    const p = new SqlParams();
    const w = enforcedUnless(filters, whereOf(filters, p));
    w.push(kind === 'failing' ? `status IN ('failed', 'timed_out')` : `decision IN ('deny', 'block')`);
    const sql = `SELECT hook_key, hook_hash, count(*) AS n, count(DISTINCT endpoint_id) AS endpoints,
        max(started_at) AS last_at
      FROM hook_runs ${whereSql(w)} GROUP BY hook_key, hook_hash ORDER BY n DESC, hook_key LIMIT ${limit}`;
    return (await this.pools.read.query(sql, p.values)).rows as Array<{
      hook_key: string;
      hook_hash: string | null;
      n: number;
      endpoints: number;
      last_at: Date;
    }>;
  }

  // Findings (chain gaps), newest first, keyset-paginated.
  async findings(
    q: { endpointId?: string; groupId?: string; kind?: string; includeResolved: boolean },
    after: Keyset | null,
    limit: number,
  ): Promise<Finding[]> {
    const rows = await this.prisma.hookRunFinding.findMany({
      where: {
        ...(q.endpointId ? { endpointId: q.endpointId } : {}),
        ...(q.groupId ? { groupId: q.groupId } : {}),
        ...(q.kind ? { kind: q.kind } : {}),
        ...(q.includeResolved ? {} : { resolvedAt: null }),
        ...(after
          ? {
              OR: [{ detectedAt: { lt: new Date(after.t) } }, { detectedAt: new Date(after.t), id: { lt: after.i } }],
            }
          : {}),
      },
      orderBy: [{ detectedAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    // The kind and its details are as the ingest and enrollment wrote them (findingSchema documents each kind).
    return rows.map((r) => ({
      id: r.id,
      endpointId: r.endpointId,
      groupId: r.groupId,
      kind: r.kind,
      fromSeq: r.fromSeq === null ? null : Number(r.fromSeq),
      toSeq: r.toSeq === null ? null : Number(r.toSeq),
      details: r.details,
      detectedAt: r.detectedAt.toISOString(),
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
    })) as Finding[];
  }
}

/** The escape mark as UTF-8 bytes (what a line of a record stored escaped contains). */
const MARK_BYTES = Buffer.from(ESCAPE_MARK, 'utf8');

// A transform of NDJSON that decodes the lines holding escaped text (records with NUL or lone surrogates) and passes
// every other byte through untouched.
function decodeEscapedLines(): Transform {
  let carry: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const end = data.lastIndexOf(0x0a) + 1;
      carry = data.subarray(end);
      const whole = data.subarray(0, end);
      if (whole.length === 0) return done();
      if (whole.indexOf(MARK_BYTES) < 0) return done(null, whole);
      const out = whole
        .toString('utf8')
        .split('\n')
        .map((line) => (line.includes(ESCAPE_MARK) ? decodeRecordJson(line) : line))
        .join('\n');
      done(null, Buffer.from(out, 'utf8'));
    },
    flush(done) {
      if (carry.length === 0) return done();
      const line = carry.toString('utf8');
      done(null, Buffer.from(line.includes(ESCAPE_MARK) ? decodeRecordJson(line) : line, 'utf8'));
    },
  });
}

// The JSON text of a stored record with its escaped strings decoded.
export function decodeRecordJson(json: string): string {
  return JSON.stringify(decodeDeep(JSON.parse(json)));
}
