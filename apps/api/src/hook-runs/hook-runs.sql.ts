// SQL fragments for hook-run queries: WHERE clauses from filters (bound or inlined for COPY) and keyset cursors.
import { bucketSql } from '../database/hourly-counts';
import type { HookRunFilters } from './hook-runs.dto';

/** Columns returned for one hook run. */
export const RUN_COLUMNS = `id, started_at, received_at, endpoint_id, group_id, seq, event, tool_name, hook_key, hook_hash,
  managed, status, skip_reason, decision, policy_revision, policy_digest, session_id, turn_id, duration_ms, exit_code,
  signal, timed_out`;

/** Text columns whose values come from endpoints unchecked (event and status are enums validated on ingest). */
const FREE_TEXT_COLUMNS = new Set([
  'tool_name',
  'hook_key',
  'hook_hash',
  'skip_reason',
  'decision',
  'policy_revision',
  'policy_digest',
  'session_id',
  'turn_id',
  'signal',
]);

// A text value a spreadsheet would run as a formula (leading =, +, -, @, tab or CR) prefixed with ' (OWASP CSV
// injection advice); evaluated by PostgreSQL per row, so the export still streams.
function csvSafe(column: string): string {
  return `CASE WHEN left(${column}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || ${column} ELSE ${column} END AS ${column}`;
}

/** The CSV export's select list: RUN_COLUMNS, free-text columns neutralised (numbers, times, ids untouched). */
export const CSV_SELECT = RUN_COLUMNS.split(',')
  .map((c) => c.trim())
  .map((c) => (FREE_TEXT_COLUMNS.has(c) ? csvSafe(c) : c))
  .join(', ');

/** Collects values as `$n` placeholders, or inlines them as escaped literals (COPY takes no parameters). */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(private readonly inline?: (text: string) => string) {}

  // Returns the placeholder (or literal) for one value; arrays become text[].
  bind(value: unknown, type = 'text'): string {
    if (this.inline) {
      if (Array.isArray(value)) return `ARRAY[${value.map((v) => this.inline!(String(v))).join(',')}]::${type}[]`;
      if (typeof value === 'number' || typeof value === 'boolean') return `${String(value)}::${type}`;
      return `${this.inline(String(value))}::${type}`;
    }
    this.values.push(value);
    return `$${this.values.length}::${type}${Array.isArray(value) ? '[]' : ''}`;
  }
}

// The WHERE conditions of a filter set.
export function whereOf(f: HookRunFilters, p: SqlParams): string[] {
  const w: string[] = [];
  if (f.endpointId) w.push(`endpoint_id = ${p.bind(f.endpointId, 'uuid')}`);
  if (f.groupId) w.push(`group_id = ${p.bind(f.groupId, 'uuid')}`);
  if (f.event) w.push(f.event.length === 1 ? `event = ${p.bind(f.event[0])}` : `event = ANY(${p.bind(f.event)})`);
  if (f.toolName) w.push(`tool_name = ${p.bind(f.toolName)}`);
  if (f.decision) {
    w.push(f.decision.length === 1 ? `decision = ${p.bind(f.decision[0])}` : `decision = ANY(${p.bind(f.decision)})`);
  }
  if (f.status) w.push(f.status.length === 1 ? `status = ${p.bind(f.status[0])}` : `status = ANY(${p.bind(f.status)})`);
  if (f.skipReason) w.push(`skip_reason = ${p.bind(f.skipReason)}`);
  if (f.hookKey) w.push(`hook_key = ${p.bind(f.hookKey)}`);
  if (f.hookHash) w.push(`hook_hash = ${p.bind(f.hookHash)}`);
  if (f.managed !== undefined) w.push(`managed = ${p.bind(f.managed, 'bool')}`);
  if (f.policyRevision !== undefined) w.push(`policy_revision = ${p.bind(f.policyRevision)}`);
  if (f.policyDigest) w.push(`policy_digest = ${p.bind(f.policyDigest)}`);
  if (f.sessionId) w.push(`session_id = ${p.bind(f.sessionId)}`);
  if (f.from) w.push(`started_at >= ${p.bind(f.from, 'timestamptz')}`);
  if (f.to) w.push(`started_at < ${p.bind(f.to, 'timestamptz')}`);
  return w;
}

// Joins conditions into a WHERE clause (empty when there are none).
export function whereSql(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** A position in the (started_at desc, id desc) order. */
export interface Keyset {
  t: string;
  i: string;
}

/** One row of the stats aggregate. */
export interface StatsRow {
  b: Date;
  event: string;
  decision: string | null;
  status: string;
  n: number;
}

/** Filters the hourly rollup cannot answer (it keeps counts per group, event, decision and status only). */
const RUN_ONLY_FILTERS = [
  'endpointId',
  'toolName',
  'skipReason',
  'hookKey',
  'hookHash',
  'managed',
  'policyRevision',
  'policyDigest',
  'sessionId',
] as const satisfies ReadonlyArray<keyof HookRunFilters>;

// The whole hours of the range the rollup can answer (null: the filters need the runs themselves, or no whole hour).
export function rollupHours(f: HookRunFilters): { from: Date | null; to: Date | null } | null {
  if (RUN_ONLY_FILTERS.some((k) => f[k] !== undefined)) return null;
  const hour = 3_600_000;
  const from = f.from ? new Date(Math.ceil(Date.parse(f.from) / hour) * hour) : null;
  const to = f.to ? new Date(Math.floor(Date.parse(f.to) / hour) * hour) : null;
  if (from && to && from.getTime() >= to.getTime()) return null;
  return { from, to };
}

// The stats aggregate's SQL: the hourly rollup answers the whole hours of the range when the filters allow (group,
// event, decision, status); the runs themselves answer the partial hours at either end, and every other filter set.
export function statsQuery(filters: HookRunFilters, bucket: 'hour' | 'day'): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const raw = (f: HookRunFilters): string =>
    `SELECT ${bucketSql('started_at', bucket)} AS b, event, decision, status, count(*) AS n
      FROM hook_runs ${whereSql(whereOf(f, p))} GROUP BY 1, 2, 3, 4`;
  const hours = rollupHours(filters);
  if (!hours) return { text: `${raw(filters)} ORDER BY 1, 2, 3, 4`, values: p.values };
  const w: string[] = [];
  if (filters.groupId) w.push(`group_id = ${p.bind(filters.groupId, 'uuid')}`);
  if (filters.event) w.push(`event = ANY(${p.bind(filters.event)})`);
  if (filters.decision) w.push(`decision = ANY(${p.bind(filters.decision)})`);
  if (filters.status) w.push(`status = ANY(${p.bind(filters.status)})`);
  if (hours.from) w.push(`hour >= ${p.bind(hours.from.toISOString(), 'timestamptz')}`);
  if (hours.to) w.push(`hour < ${p.bind(hours.to.toISOString(), 'timestamptz')}`);
  const parts = [
    `SELECT ${bucketSql('hour', bucket)} AS b, event, nullif(decision, '') AS decision, status, sum(n)::int8 AS n
      FROM hook_run_hourly ${whereSql(w)} GROUP BY 1, 2, 3, 4`,
  ];
  if (hours.from && filters.from && hours.from.getTime() > Date.parse(filters.from)) {
    parts.push(raw({ ...filters, to: hours.from.toISOString() }));
  }
  if (hours.to && filters.to && hours.to.getTime() < Date.parse(filters.to)) {
    parts.push(raw({ ...filters, from: hours.to.toISOString() }));
  }
  const text =
    parts.length === 1
      ? parts[0]!
      : `SELECT b, event, decision, status, sum(n)::int8 AS n FROM (${parts.join(' UNION ALL ')}) x GROUP BY 1, 2, 3, 4`;
  return { text: `${text} ORDER BY 1, 2, 3, 4`, values: p.values };
}
