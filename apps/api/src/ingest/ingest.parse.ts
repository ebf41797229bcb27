// Turns an uploaded batch into storable rows, naming the line and field of every problem (pure: the API runs it
// before answering 202, the worker runs it again on the staged bytes and gets the same rows).
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { ApiError } from '../common/api-error';
import { nestedDeeperThan, MAX_JSON_DEPTH } from '../common/json-depth';
import { RECORD_COLUMN_NAMES } from '../database/hook-run-columns';
import { jsonPath } from '../common/zod-issues';
import { escapeDeep, jsonMayNeedEscape } from '../database/storable-text';
import {
  columnsOf,
  type HookRunColumns,
  type RecordGap,
  recordHashOf,
  type RunRecord,
  runRecordSchema,
} from './run-record';

/** An upload body: NDJSON text (possibly inflated from gzip) or a parsed JSON array. */
export type UploadBody = { kind: 'ndjson'; text: string } | { kind: 'json'; items: unknown[] };

/** One record ready for COPY: its columns (the record text included) and any spool gap before it. */
export interface IngestRow {
  c: HookRunColumns;
  gap: RecordGap;
}

/** One located problem of an upload. */
export interface UploadIssue {
  line: number;
  path: string;
  message: string;
}

const MAX_REPORTED_ISSUES = 20;
/** Times PostgreSQL stores and partitions sensibly (an endpoint clock outside this is a broken record). */
const TIME_MIN = Date.parse('2000-01-01T00:00:00.000Z');
const TIME_MAX = Date.parse('2100-01-01T00:00:00.000Z');

// The items of a body with their line numbers and raw text (NDJSON lines are hashed as received).
function itemsOf(body: UploadBody): Array<{ line: number; raw: string | null; text: string; value: unknown }> {
  if (body.kind === 'json') {
    return body.items.map((value, i) => ({ line: i + 1, raw: null, text: JSON.stringify(value), value }));
  }
  const items: Array<{ line: number; raw: string | null; text: string; value: unknown }> = [];
  const lines = body.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      // Bounded nesting before JSON.parse and everything after it (stringify, validation) recurse into the value.
      if (nestedDeeperThan(text)) throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      value = JSON.parse(text);
    } catch (err) {
      throw new ApiError('validation_failed', `line ${i + 1}: invalid JSON: ${(err as Error).message}`, [
        { line: i + 1, path: '$', message: 'invalid JSON' },
      ]);
    }
    items.push({ line: i + 1, raw: text, text, value });
  }
  return items;
}

// Problems PostgreSQL would have with a schema-valid record: times outside what it stores.
function storageIssues(rec: RunRecord): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  for (const field of ['recordedAt', 'startedAt'] as const) {
    const v = rec[field];
    if (v === null) continue;
    const t = Date.parse(v);
    if (!Number.isFinite(t) || t < TIME_MIN || t >= TIME_MAX) {
      out.push({ path: `$.${field}`, message: `time out of range (${v}): must be from 2000 to 2099 UTC` });
    }
  }
  return out;
}

// Validates every record of a batch and reduces it to rows; throws a 400 naming the first bad lines.
export function parseUpload(body: UploadBody, maxRecords: number): IngestRow[] {
  if (body.kind === 'json' && body.items.length > maxRecords) {
    throw new ApiError(
      'payload_too_large',
      `Batch has ${body.items.length} records; at most ${maxRecords} are accepted`,
    );
  }
  const items = itemsOf(body);
  if (items.length > maxRecords) {
    throw new ApiError('payload_too_large', `Batch has ${items.length} records; at most ${maxRecords} are accepted`);
  }
  const rows: IngestRow[] = [];
  const issues: UploadIssue[] = [];
  const report = (line: number, path: string, message: string): void => {
    if (issues.length < MAX_REPORTED_ISSUES) issues.push({ line, path, message });
  };
  for (const item of items) {
    const parsed = runRecordSchema.safeParse(item.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) report(item.line, jsonPath(issue.path), issue.message);
      continue;
    }
    const problems = storageIssues(parsed.data);
    if (problems.length > 0) {
      for (const p of problems) report(item.line, p.path, p.message);
      continue;
    }
    const hash = recordHashOf(item.value, item.raw);
    // Text PostgreSQL cannot hold (NUL, lone surrogates) is stored escaped; the API decodes it back.
    let record = parsed.data;
    let text = item.text;
    let escaped = false;
    if (jsonMayNeedEscape(item.text)) {
      const stored = escapeDeep(item.value);
      if (stored.changed) {
        escaped = true;
        text = JSON.stringify(stored.value);
        record = escapeDeep(parsed.data).value as RunRecord;
      }
    }
    rows.push({ c: columnsOf(record, hash, text, escaped), gap: parsed.data.gap ?? null });
  }
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new ApiError(
      'validation_failed',
      `line ${first.line}: ${first.path}: ${first.message}${issues.length > 1 ? ` (and more)` : ''}`,
      issues,
    );
  }
  return rows;
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

// The rows of a validated upload as staged bytes: gzip (fast level, off the event loop) of one JSON array per row,
// the record columns in table order then the gap. The worker stores them without parsing the records again.
export async function encodeRows(rows: IngestRow[]): Promise<Buffer> {
  const out = rows.map((r) => [...RECORD_COLUMN_NAMES.map((k) => r.c[k]), r.gap]);
  return gzipAsync(JSON.stringify(out), { level: 1 });
}

// The rows of staged bytes written by encodeRows.
export async function decodeRows(body: Buffer): Promise<IngestRow[]> {
  const arrays = JSON.parse((await gunzipAsync(body)).toString('utf8')) as unknown[][];
  const n = RECORD_COLUMN_NAMES.length;
  return arrays.map((a) => {
    const c: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) c[RECORD_COLUMN_NAMES[i]!] = a[i];
    return { c: c as unknown as HookRunColumns, gap: (a[n] ?? null) as RecordGap };
  });
}
