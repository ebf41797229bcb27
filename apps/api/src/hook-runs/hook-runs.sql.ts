// SQL fragments for hook-run queries: WHERE clauses from filters (bound or inlined for COPY) and keyset cursors.
import { z } from 'zod';
import { signCursor, verifyCursor } from '../common/cursor';
import { isoTime } from '../common/query';
import { bucketSql } from '../database/hourly-counts';
import {
  API_SELECT,
  CSV_SELECT,
  FILTER_COLUMNS,
  type FilterColumnName,
  RUN_ONLY_FILTERS,
  sqlName,
} from '../database/hook-run-columns';
import type { HookRunFilters } from './hook-runs.dto';

/** Columns returned for one hook run (from the column table, aliased to the API names; the record as its text). */
export const RUN_COLUMNS = API_SELECT;

export { CSV_SELECT };

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

/** True when two key sets are the same (compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every query filter except the time range is a filterable column of the table, and every such column a filter. */
const FILTERS_MATCH_COLUMNS: Same<Exclude<keyof HookRunFilters, 'from' | 'to'>, FilterColumnName> = true;
void FILTERS_MATCH_COLUMNS;

// A LIKE pattern matching `text` anywhere, its wildcards escaped (matched literally, in linear time).
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// The WHERE conditions of a filter set (each filterable column by its kind, then the time range).
export function whereOf(f: HookRunFilters, p: SqlParams): string[] {
  const w: string[] = [];
  for (const [k, c] of FILTER_COLUMNS) {
    const v = f[k] as unknown;
    if (v === undefined) continue;
    const col = sqlName(k);
    if (c.filter === 'any' && Array.isArray(v)) {
      w.push(v.length === 1 ? `${col} = ${p.bind(v[0], c.pg)}` : `${col} = ANY(${p.bind(v, c.pg)})`);
    } else if (c.filter === 'substring') {
      w.push(`${col} ILIKE ${p.bind(containsPattern(v as string))} ESCAPE '\\'`);
    } else {
      w.push(`${col} = ${p.bind(v, c.pg)}`);
    }
  }
  if (f.from) w.push(`started_at >= ${p.bind(f.from, 'timestamptz')}`);
  if (f.to) w.push(`started_at < ${p.bind(f.to, 'timestamptz')}`);
  return w;
}

// Aggregates count enforced runs only, unless the filters ask for a shadow release's runs (like the rollup).
export function enforcedUnless(f: HookRunFilters, conditions: string[]): string[] {
  return f.shadowReleaseId === undefined ? [...conditions, 'shadow_release_id IS NULL'] : conditions;
}

// Joins conditions into a WHERE clause (empty when there are none).
export function whereSql(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** A position in the (started_at desc, id desc[, endpoint_id desc]) order. */
export interface Keyset {
  t: string;
  i: string;
  /** Hook runs: the endpoint (records of two endpoints may share a time and id; the key includes the endpoint). */
  e?: string;
}

/** The shape of a hook-run or finding cursor position. */
const keysetShape = z.object({ t: isoTime(), i: z.guid(), e: z.guid().optional() }).strict();

// Encodes a keyset position of `list` as a signed opaque cursor (the API's one cursor codec).
export function encodeCursor(list: 'hook-runs' | 'findings', k: Keyset): string {
  return signCursor(list, k.e ? { t: k.t, i: k.i, e: k.e } : { t: k.t, i: k.i });
}

// Decodes a cursor this server issued for `list`; null for none; 400 naming `cursor` otherwise.
export function decodeCursor(list: 'hook-runs' | 'findings', cursor: string | undefined): Keyset | null {
  return verifyCursor(list, cursor, keysetShape) ?? null;
}

/** One row of the stats aggregate. */
export interface StatsRow {
  b: Date;
  event: string;
  decision: string | null;
  status: string;
  n: number;
}

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
      FROM hook_runs ${whereSql(enforcedUnless(f, whereOf(f, p)))} GROUP BY 1, 2, 3, 4`;
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

// The SQL of one page, newest first, strictly after the keyset position when given (limit+1 rows: more exist?).
export function pageQuery(
  filters: HookRunFilters,
  after: Keyset | null,
  limit: number,
): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const w = whereOf(filters, p);
  // The endpoint breaks ties (a cursor issued before it was part of the key carries none).
  if (after?.e) {
    w.push(
      `(started_at, id, endpoint_id) < (${p.bind(after.t, 'timestamptz')}, ${p.bind(after.i, 'uuid')}, ` +
        `${p.bind(after.e, 'uuid')})`,
    );
  } else if (after) w.push(`(started_at, id) < (${p.bind(after.t, 'timestamptz')}, ${p.bind(after.i, 'uuid')})`);
  return {
    text:
      `SELECT ${RUN_COLUMNS} FROM hook_runs ${whereSql(w)} ` +
      `ORDER BY started_at DESC, id DESC, endpoint_id DESC LIMIT ${limit + 1}`,
    values: p.values,
  };
}
