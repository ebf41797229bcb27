// The run-record contract as the server sees it: hook-core's schema, the columns extracted for queries, the chain hash.
import { canonicalJson, type RunRecord, runRecordSchema, sha256Hex } from '@hookwarden/hook-core';
import type { HookRunColumns } from '../database/hook-run-columns';
import { boundColumn } from '../database/storable-text';

export { runRecordSchema, type RunRecord, type HookRunColumns };

/** Events whose matcher input is a tool name. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse']);

/** Longest tool command kept in its column (the record keeps what the capture policy kept). */
const TOOL_COMMAND_MAX = 8192;
const INT4_MAX = 2_147_483_647;

/** Records the spool dropped just before a record (cap reached). */
export type RecordGap = { dropped: number; fromSeq: number; toSeq: number } | null;

// The chain hash of a record: sha256 hex of its canonical JSON line (what the next record's prevHash names).
// NDJSON lines from the spool are already canonical and hashed as received; JSON bodies are re-canonicalized.
export function recordHashOf(value: unknown, line: string | null): string {
  return sha256Hex(line ?? canonicalJson(value));
}

// An integer column value, or null when it does not fit int4 (the record keeps the exact value).
function int4(v: number | null): number | null {
  if (v === null) return null;
  const n = Math.round(v);
  return n >= -INT4_MAX - 1 && n <= INT4_MAX ? n : null;
}

// Extracts the columns of a validated (and storable) record: skipped runs have no start, their record time is used;
// text columns are bounded (indexes hold ~2.7 kB per entry; the record keeps the full text).
export function columnsOf(record: RunRecord, recordHash: string, text: string, escaped: boolean): HookRunColumns {
  const b = boundColumn;
  return {
    id: record.id,
    startedAt: new Date(record.startedAt ?? record.recordedAt).toISOString(),
    seq: record.seq,
    prevHash: record.prevHash,
    recordHash,
    event: record.event,
    toolName: b(TOOL_EVENTS.has(record.event) ? record.matcherInput : null),
    toolCommand: b(record.toolCall?.command ?? null, TOOL_COMMAND_MAX),
    hookKey: b(record.hook.key)!,
    hookHash: b(record.hook.hash),
    managed: record.hook.managed,
    status: record.status,
    skipReason: b(record.skipReason),
    decision: b(record.decision),
    policyRevision: b(record.policy.revision),
    policyDigest: b(record.policy.digest),
    sessionId: b(record.sessionId),
    turnId: b(record.turnId),
    durationMs: int4(record.durationMs),
    exitCode: int4(record.exitCode),
    signal: b(record.signal),
    timedOut: record.timedOut,
    escaped,
    shadowReleaseId: record.shadow ? (b(record.shadow.releaseId) ?? '') : null,
    record: text,
  };
}
