// Auditor queries over hook runs: pages with opaque cursors, one record, exports, aggregates, findings.
import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { primed } from '../common/streams';
import type {
  FindingsQueryDto,
  HookRunDto,
  HookRunFilters,
  HookRunPageDto,
  ListHookRunsQueryDto,
  StatsDto,
  TopDto,
  Finding,
} from './hook-runs.dto';
import { type HookRunRow, HookRunsRepository } from './hook-runs.repository';
import { cursorCodec, timeIdKey } from '../common/cursor';

/** Keyset positions: runs on (started_at, id), findings on (detected_at, id), newest first. */
const runCursors = cursorCodec('hook-runs', timeIdKey);
const findingCursors = cursorCodec('findings', timeIdKey);

// The repository's keyset form of a decoded position.
function keyset(p: { t: string; id: string } | undefined): { t: string; i: string } | null {
  return p ? { t: p.t, i: p.id } : null;
}

@Injectable()
export class HookRunsService {
  constructor(private readonly repository: HookRunsRepository) {}

  // A page of runs, newest first.
  async list(q: ListHookRunsQueryDto): Promise<HookRunPageDto> {
    const rows = await this.repository.page(q, keyset(runCursors.decode(q.cursor)), q.limit);
    const more = rows.length > q.limit;
    const items = rows.slice(0, q.limit).map(toDto);
    const last = items[items.length - 1];
    return { items, nextCursor: more && last ? runCursors.encode({ t: last.startedAt, id: last.id }) : null };
  }

  // One run, 404 when unknown.
  async get(id: string): Promise<HookRunDto> {
    const row = await this.repository.byId(id);
    if (!row) throw new ApiError('not_found', `Hook run ${id} not found`);
    return toDto(row);
  }

  // A streamed export of the filtered runs; resolves once the first byte is there (a failure before is an error answer).
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
    const rows = await this.repository.findings(q, keyset(findingCursors.decode(q.cursor)), q.limit);
    const items = rows.slice(0, q.limit);
    const last = items[items.length - 1];
    return {
      items,
      nextCursor: rows.length > q.limit && last ? findingCursors.encode({ t: last.detectedAt, id: last.id }) : null,
    };
  }
}

// Aggregates default to the last 24 hours so an unbounded request cannot scan the whole table.
function withDefaultRange(f: HookRunFilters): HookRunFilters {
  if (f.from || f.to) return f;
  return { ...f, from: new Date(Date.now() - 86_400_000).toISOString() };
}

// Maps a row to the API shape.
function toDto(r: HookRunRow): HookRunDto {
  return {
    id: r.id,
    startedAt: r.started_at.toISOString(),
    receivedAt: r.received_at.toISOString(),
    endpointId: r.endpoint_id,
    groupId: r.group_id,
    seq: r.seq,
    event: r.event,
    toolName: r.tool_name,
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
    record: r.record,
  };
}
