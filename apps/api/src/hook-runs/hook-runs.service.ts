// Auditor queries over hook runs: pages with opaque cursors, one record, exports, aggregates, findings.
import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { primed } from '../common/streams';
import type {
  FindingsQueryDto,
  HookRunDto,
  HookRunFilters,
  ListHookRunsQueryDto,
  StatsDto,
  TopDto,
  Finding,
} from './hook-runs.dto';
import fastJson from 'fast-json-stringify';
import { type HookRunFlat, hookRunFlatJsonSchema, rowToFlat } from '../database/hook-run-columns';
import { decodeText } from '../database/storable-text';
import { decodeRecordJson, type HookRunRow, HookRunsRepository } from './hook-runs.repository';
import { decodeCursor, encodeCursor } from './hook-runs.sql';

@Injectable()
export class HookRunsService {
  constructor(private readonly repository: HookRunsRepository) {}

  // A page of runs, newest first, as the JSON text of a HookRunPageDto (serialized from its schema; the stored
  // record text is spliced in as is, no parse and re-serialize).
  // Pages beyond STREAM_ABOVE items are streamed in chunks (serialized as the socket drains, never one big string).
  async listJson(q: ListHookRunsQueryDto): Promise<string | Readable> {
    const rows = await this.repository.page(q, decodeCursor('hook-runs', q.cursor), q.limit);
    const more = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const lastRow = page[page.length - 1];
    const nextCursor =
      more && lastRow
        ? encodeCursor('hook-runs', { t: lastRow.startedAt.toISOString(), i: lastRow.id, e: lastRow.endpointId })
        : null;
    const tail = `],"nextCursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`;
    if (page.length <= STREAM_ABOVE) return `{"items":[${serializeItems(page, 0, page.length)}${tail}`;
    return Readable.from(
      (function* chunks(): Generator<string> {
        yield '{"items":[';
        for (let i = 0; i < page.length; i += STREAM_CHUNK) {
          yield `${i ? ',' : ''}${serializeItems(page, i, Math.min(page.length, i + STREAM_CHUNK))}`;
        }
        yield tail;
      })(),
      { objectMode: false },
    );
  }

  // One run (of one endpoint when given), 404 when unknown, 409 when runs of several endpoints carry the id.
  async get(id: string, endpointId?: string): Promise<HookRunDto> {
    const rows = await this.repository.byId(id, endpointId);
    const row = rows[0];
    if (!row)
      throw new ApiError('not_found', `Hook run ${id} not found${endpointId ? ` for endpoint ${endpointId}` : ''}`);
    if (rows.length > 1) {
      const endpoints = [...new Set(rows.map((r) => r.endpointId))];
      throw new ApiError(
        'conflict',
        `Runs of ${endpoints.length} endpoints carry id ${id} (${endpoints.join(', ')}): pass endpointId to pick one`,
        endpoints.map((e) => ({ path: '$.endpointId', message: `endpoint ${e} has a run with this id` })),
      );
    }
    const flat = toFlat(row);
    return { ...flat, record: JSON.parse(flat.record) as Record<string, unknown> };
  }

  // A streamed export of the filtered runs; resolves once the first byte is there, so a failing query answers an
  // error instead of a 200 with a cut body.
  async export(filters: HookRunFilters, format: 'ndjson' | 'csv'): Promise<Readable> {
    return primed(await this.repository.exportStream(filters, format));
  }

  // Counts per bucket by event, decision and status.
  async stats(filters: HookRunFilters, bucket: 'hour' | 'day'): Promise<StatsDto> {
    const rows = await this.repository.stats(withDefaultRange(filters), bucket);
    const buckets = new Map<string, StatsDto['buckets'][number]>();
    for (const r of rows) {
      const start = r.b.toISOString();
      let b = buckets.get(start);
      if (!b) {
        b = { start, total: 0, byEvent: {}, byDecision: {}, byStatus: {} };
        buckets.set(start, b);
      }
      b.total += r.n;
      b.byEvent[r.event] = (b.byEvent[r.event] ?? 0) + r.n;
      const decision = r.decision ?? 'none';
      b.byDecision[decision] = (b.byDecision[decision] ?? 0) + r.n;
      b.byStatus[r.status] = (b.byStatus[r.status] ?? 0) + r.n;
    }
    return { bucket, buckets: [...buckets.values()] };
  }

  // The top failing or blocking hooks in the range (default: the last 24 hours).
  async top(filters: HookRunFilters, kind: 'failing' | 'blocking', limit: number): Promise<TopDto> {
    const rows = await this.repository.top(withDefaultRange(filters), kind, limit);
    return {
      kind,
      items: rows.map((r) => ({
        hookKey: r.hook_key,
        hookHash: r.hook_hash,
        count: r.n,
        endpoints: r.endpoints,
        lastAt: r.last_at.toISOString(),
      })),
    };
  }

  // Findings (gaps, broken links, drops), newest first.
  async findings(q: FindingsQueryDto): Promise<{ items: Finding[]; nextCursor: string | null }> {
    const rows = await this.repository.findings(q, decodeCursor('findings', q.cursor), q.limit);
    const items = rows.slice(0, q.limit);
    const last = items[items.length - 1];
    return {
      items,
      nextCursor: rows.length > q.limit && last ? encodeCursor('findings', { t: last.detectedAt, i: last.id }) : null,
    };
  }
}

// Aggregates default to the last 24 hours so an unbounded request cannot scan the whole table.
function withDefaultRange(f: HookRunFilters): HookRunFilters {
  if (f.from || f.to) return f;
  return { ...f, from: new Date(Date.now() - 86_400_000).toISOString() };
}

// Maps a row to the API shape, its record left as JSON text (escaped text decoded).
function toFlat(r: HookRunRow): HookRunFlat {
  return rowToFlat(r, decodeText, decodeRecordJson);
}

/** Pages with more items than this are streamed, STREAM_CHUNK items per chunk. */
const STREAM_ABOVE = 100;
const STREAM_CHUNK = 50;

// Items [from, to) of a page as JSON, comma-separated: the compiled serializer for the columns, the stored record
// text spliced in as is.
function serializeItems(rows: HookRunRow[], from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) {
    const item = toFlat(rows[i]!);
    out += `${i > from ? ',' : ''}${stringifyFlat(item).slice(0, -1)},"record":${item.record}}`;
  }
  return out;
}

/** The compiled serializer of one run without its record. */
const stringifyFlat = fastJson(hookRunFlatJsonSchema as unknown as Parameters<typeof fastJson>[0]) as (
  item: Omit<HookRunFlat, 'record'>,
) => string;
