// The run-record contract as the server sees it: validation schema, the columns extracted for queries, the chain hash.
// PROVISIONAL schema: hook-core's `runRecordSchema` (libs/hook-core/src/record) replaces it once that module lands.
import { createHash } from 'node:crypto';
import { z } from 'zod';

const nullableString = z.string().nullable().optional();

/** Shape of one run record (unknown fields are kept in the stored jsonb). */
export const runRecordSchema = z.looseObject({
  id: z.uuid(),
  seq: z.number().int().min(0),
  prevHash: nullableString,
  /** Hash of this record as chained by the endpoint (set when the record was redacted after hashing). */
  recordHash: nullableString,
  policy: z
    .looseObject({ revision: z.number().int().nullable().optional(), digest: nullableString })
    .nullable()
    .optional(),
  sessionId: nullableString,
  turnId: nullableString,
  event: z.string().min(1),
  matcherInput: z.looseObject({ toolName: nullableString, source: nullableString }).nullable().optional(),
  hookKey: z.string().min(1),
  hookHash: nullableString,
  layer: nullableString,
  sourceFile: nullableString,
  managed: z.boolean(),
  status: z.enum(['ran', 'skipped', 'failed', 'timed_out']),
  skipReason: nullableString,
  startedAt: z.iso.datetime({ offset: true }),
  durationMs: z.number().min(0).nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: nullableString,
  timedOut: z.boolean().optional(),
  parseVerdict: nullableString,
  decision: nullableString,
  effect: z.unknown().optional(),
  spillPath: nullableString,
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/** The queryable columns of one hook_runs row (the full record goes to the jsonb column). */
export interface HookRunColumns {
  id: string;
  startedAt: string;
  seq: number;
  prevHash: string | null;
  recordHash: string;
  event: string;
  toolName: string | null;
  hookKey: string;
  hookHash: string | null;
  managed: boolean;
  status: string;
  skipReason: string | null;
  decision: string | null;
  policyRevision: number | null;
  policyDigest: string | null;
  sessionId: string | null;
  turnId: string | null;
  durationMs: number | null;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

// Normalizes a chain hash to bare lowercase hex (records may write `sha256:<hex>`).
export function normalizeHash(hash: string | null | undefined): string | null {
  if (!hash) return null;
  return hash.replace(/^sha256:/i, '').toLowerCase();
}

// The chain hash of a record: the endpoint's own when it redacted the record, else sha256 of the line as written.
export function recordHashOf(record: RunRecord, line: string): string {
  return normalizeHash(record.recordHash) ?? createHash('sha256').update(line, 'utf8').digest('hex');
}

// Extracts the indexed columns of a validated record.
export function columnsOf(record: RunRecord, line: string): HookRunColumns {
  return {
    id: record.id,
    startedAt: new Date(record.startedAt).toISOString(),
    seq: record.seq,
    prevHash: normalizeHash(record.prevHash),
    recordHash: recordHashOf(record, line),
    event: record.event,
    toolName: record.matcherInput?.toolName ?? null,
    hookKey: record.hookKey,
    hookHash: record.hookHash ?? null,
    managed: record.managed,
    status: record.status,
    skipReason: record.skipReason ?? null,
    decision: record.decision ?? null,
    policyRevision: record.policy?.revision ?? null,
    policyDigest: record.policy?.digest ?? null,
    sessionId: record.sessionId ?? null,
    turnId: record.turnId ?? null,
    durationMs: record.durationMs == null ? null : Math.round(record.durationMs),
    exitCode: record.exitCode ?? null,
    signal: record.signal ?? null,
    timedOut: record.timedOut ?? record.status === 'timed_out',
  };
}
