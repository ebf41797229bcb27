// The one table of hook_runs columns (besides the migration): ingest's COPY list, the query select lists, the row and
// API types, the response schema, the CSV export and the filters are all derived from it, so a column added here
// reaches every place (and one added elsewhere does not compile).
import { runRecordSchema } from '@hookwarden/hook-core';
import { z } from 'zod';

/** PostgreSQL types used by hook_runs, with the JavaScript type pg returns for each. */
interface PgTypes {
  uuid: string;
  timestamptz: Date;
  int8: number;
  int4: number;
  text: string;
  bool: boolean;
  jsonb: Record<string, unknown>;
}
export type PgType = keyof PgTypes;

/** How an auditor filter on the column matches (absent: not filterable). */
export type FilterKind = 'eq' | 'any' | 'bool' | 'substring';

/** One column of hook_runs. */
export interface ColumnSpec {
  /** PostgreSQL type (the COPY/unnest element type). */
  pg: PgType;
  nullable: boolean;
  /** Where ingest takes the value from: the upload (endpoint, group, receipt) or the record (see columnsOf). */
  from: 'upload' | 'record';
  /** Filter of the same name on the auditor routes. */
  filter?: FilterKind;
  /** The hourly rollup (hook_run_hourly) keeps counts by this column, so stats can answer the filter from it. */
  rollup?: boolean;
  /** Endpoint-supplied free text: the CSV export neutralises spreadsheet formulas in it. */
  freeText?: boolean;
  /** Returned by the auditor routes (default true). */
  api?: boolean;
}

/** Every column of hook_runs, in COPY order; keys are the API names (SQL names are their snake_case). */
export const HOOK_RUN_COLUMNS = {
  id: { pg: 'uuid', nullable: false, from: 'record' },
  startedAt: { pg: 'timestamptz', nullable: false, from: 'record' },
  receivedAt: { pg: 'timestamptz', nullable: false, from: 'upload' },
  endpointId: { pg: 'uuid', nullable: false, from: 'upload', filter: 'eq' },
  groupId: { pg: 'uuid', nullable: false, from: 'upload', filter: 'eq', rollup: true },
  seq: { pg: 'int8', nullable: false, from: 'record' },
  prevHash: { pg: 'text', nullable: true, from: 'record', api: false },
  recordHash: { pg: 'text', nullable: false, from: 'record', api: false },
  event: { pg: 'text', nullable: false, from: 'record', filter: 'any', rollup: true },
  toolName: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  toolCommand: { pg: 'text', nullable: true, from: 'record', filter: 'substring', freeText: true },
  hookKey: { pg: 'text', nullable: false, from: 'record', filter: 'eq', freeText: true },
  hookHash: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  managed: { pg: 'bool', nullable: false, from: 'record', filter: 'bool' },
  status: { pg: 'text', nullable: false, from: 'record', filter: 'any', rollup: true },
  skipReason: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  decision: { pg: 'text', nullable: true, from: 'record', filter: 'any', rollup: true, freeText: true },
  policyRevision: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  policyDigest: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  sessionId: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  turnId: { pg: 'text', nullable: true, from: 'record', freeText: true },
  durationMs: { pg: 'int4', nullable: true, from: 'record' },
  exitCode: { pg: 'int4', nullable: true, from: 'record' },
  signal: { pg: 'text', nullable: true, from: 'record', freeText: true },
  timedOut: { pg: 'bool', nullable: false, from: 'record' },
  escaped: { pg: 'bool', nullable: false, from: 'record' },
  /** Runs of the endpoint's shadow layer: their shadow release ('' when the layer names none); null when enforced. */
  shadowReleaseId: { pg: 'text', nullable: true, from: 'record', filter: 'eq', freeText: true },
  record: { pg: 'jsonb', nullable: false, from: 'record' },
} as const satisfies Record<string, ColumnSpec>;

/** The key of a record (hook_runs' primary key, the partition key last): a record is one endpoint's, so another
 *  endpoint re-using its id never pre-empts it; the id leads, so a look-up by id alone uses the key. */
export const HOOK_RUN_KEY = ['id', 'endpointId', 'startedAt'] as const satisfies ReadonlyArray<
  keyof typeof HOOK_RUN_COLUMNS
>;

type Columns = typeof HOOK_RUN_COLUMNS;
export type ColumnName = keyof Columns;
type Value<C extends ColumnSpec, T> = C['nullable'] extends true ? T | null : T;

/** Columns ingest takes from the record. */
export type RecordColumnName = { [K in ColumnName]: Columns[K]['from'] extends 'record' ? K : never }[ColumnName];
/** Columns the auditor routes return. */
export type ApiColumnName = { [K in ColumnName]: Columns[K] extends { api: false } ? never : K }[ColumnName];
/** Columns with an auditor filter. */
export type FilterColumnName = { [K in ColumnName]: Columns[K] extends { filter: FilterKind } ? K : never }[ColumnName];

/**
 * The values ingest extracts from one record (times as ISO text; the record as its JSON text), one per record column.
 */
export type HookRunColumns = {
  [K in RecordColumnName]: Value<
    Columns[K],
    Columns[K]['pg'] extends 'timestamptz'
      ? string
      : Columns[K]['pg'] extends 'jsonb'
        ? string
        : PgTypes[Columns[K]['pg']]
  >;
};

/** One row as the auditor queries read it (SQL columns aliased to the API names; jsonb as its JSON text). */
export type HookRunRow = {
  [K in ApiColumnName]: Value<Columns[K], Columns[K]['pg'] extends 'jsonb' ? string : PgTypes[Columns[K]['pg']]>;
};

/** One run as the API returns it (times as ISO-8601 text). */
export type HookRunApi = {
  [K in ApiColumnName]: Value<Columns[K], Columns[K]['pg'] extends 'timestamptz' ? string : PgTypes[Columns[K]['pg']]>;
};

/** snake_case SQL name of a column. */
export function sqlName(name: ColumnName): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const entries = Object.entries(HOOK_RUN_COLUMNS) as Array<[ColumnName, ColumnSpec]>;

/** Column names in COPY order. */
export const COLUMN_NAMES: readonly ColumnName[] = entries.map(([k]) => k);
/** Record-derived column names in COPY order. */
export const RECORD_COLUMN_NAMES = entries.filter(([, c]) => c.from === 'record').map(([k]) => k) as RecordColumnName[];
/** The API columns. */
export const API_COLUMN_NAMES = entries.filter(([, c]) => c.api !== false).map(([k]) => k) as ApiColumnName[];
/** Filterable columns with their kind. */
export const FILTER_COLUMNS = entries.filter(([, c]) => c.filter).map(([k, c]) => [k, c] as const) as Array<
  [FilterColumnName, ColumnSpec & { filter: FilterKind }]
>;
/** Filters the hourly rollup cannot answer (it keeps counts per group, event, decision and status only). */
export const RUN_ONLY_FILTERS = FILTER_COLUMNS.filter(([, c]) => !c.rollup).map(([k]) => k);

/** The select list of the auditor queries: every API column, aliased to its API name. */
export const API_SELECT = API_COLUMN_NAMES.map((k) =>
  HOOK_RUN_COLUMNS[k].pg === 'jsonb' ? `${sqlName(k)}::text AS "${k}"` : `${sqlName(k)} AS "${k}"`,
).join(', ');

/** The API columns except the record (the CSV export and list views). */
const FLAT_API_COLUMNS = API_COLUMN_NAMES.filter((k) => k !== 'record');

// A text value a spreadsheet would run as a formula (leading =, +, -, @, tab or CR) prefixed with ' (OWASP CSV
// injection advice); evaluated by PostgreSQL per row, so the export still streams.
function csvSafe(expr: string): string {
  return `CASE WHEN left(${expr}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || ${expr} ELSE ${expr} END`;
}

// One column as CSV text: ISO-8601 UTC times, true/false, free text neutralised.
function csvExpr(name: string, c: Pick<ColumnSpec, 'pg' | 'freeText'>): string {
  if (c.pg === 'timestamptz') return `to_char(${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (c.pg === 'bool') return `CASE WHEN ${name} THEN 'true' WHEN NOT ${name} THEN 'false' END`;
  return c.freeText ? csvSafe(name) : name;
}

/** Columns of the CSV export taken from the record itself (the decision's reason, the failure). */
const CSV_RECORD_FIELDS = ['reason', 'error'] as const;

/** The CSV export's select list: the API columns (record fields reason and error instead of the whole record). */
export const CSV_SELECT = [
  ...FLAT_API_COLUMNS.map((k) => `${csvExpr(sqlName(k), HOOK_RUN_COLUMNS[k])} AS ${sqlName(k)}`),
  ...CSV_RECORD_FIELDS.map((f) => `${csvSafe(`(record->>'${f}')`)} AS ${f}`),
].join(', ');

// The zod type of one API column.
function zodOf(c: ColumnSpec): z.ZodType {
  const base =
    c.pg === 'uuid'
      ? z.uuid()
      : c.pg === 'timestamptz'
        ? z.string().describe('ISO-8601 UTC')
        : c.pg === 'int8' || c.pg === 'int4'
          ? z.number().int()
          : c.pg === 'bool'
            ? z.boolean()
            : c.pg === 'jsonb'
              ? runRecordSchema.describe('the full run record as uploaded')
              : z.string();
  return c.nullable ? base.nullable() : base;
}

/** The response schema of one run, from the table. */
export const hookRunApiSchema = z.object(
  Object.fromEntries(API_COLUMN_NAMES.map((k) => [k, zodOf(HOOK_RUN_COLUMNS[k])])) as Record<ApiColumnName, z.ZodType>,
) as unknown as z.ZodType<HookRunApi>;

/** Times of a row as ISO text (the API shape). */
const TIME_COLUMNS = API_COLUMN_NAMES.filter((k) => HOOK_RUN_COLUMNS[k].pg === 'timestamptz');
/** Text columns (escaped like the record when it had unstorable text). */
const TEXT_COLUMNS = API_COLUMN_NAMES.filter((k) => HOOK_RUN_COLUMNS[k].pg === 'text');

/** One run in the API shape except its record, which stays JSON text (spliced into responses as is). */
export type HookRunFlat = Omit<HookRunApi, 'record'> & { record: string };

// Maps a row to the API shape, record left as JSON text (times to ISO-8601; escaped text decoded back to what the
// endpoint sent, `decode` doing the record's strings).
export function rowToFlat(
  row: HookRunRow,
  decode: (s: string) => string,
  decodeJson: (json: string) => string,
): HookRunFlat {
  const out = row as unknown as Record<string, unknown>;
  for (const k of TIME_COLUMNS) out[k] = (row[k] as unknown as Date).toISOString();
  if (row.escaped) {
    for (const k of TEXT_COLUMNS) if (typeof out[k] === 'string') out[k] = decode(out[k]);
    out.record = decodeJson(row.record);
  }
  return out as unknown as HookRunFlat;
}

/** JSON Schema of one run without its record (for the compiled serializer). */
export const hookRunFlatJsonSchema = {
  type: 'object',
  properties: Object.fromEntries(
    API_COLUMN_NAMES.filter((k) => k !== 'record').map((k) => {
      const c: ColumnSpec = HOOK_RUN_COLUMNS[k];
      const t = c.pg === 'int8' || c.pg === 'int4' ? 'integer' : c.pg === 'bool' ? 'boolean' : 'string';
      return [k, { type: c.nullable ? [t, 'null'] : t }];
    }),
  ),
  required: API_COLUMN_NAMES.filter((k) => k !== 'record'),
} as const;
