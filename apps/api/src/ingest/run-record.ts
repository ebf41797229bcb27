// The run-record contract as the server sees it: hook-core's schema, the columns extracted for queries, the chain hash.
import { canonicalJson, type RunRecord, runRecordSchema, sha256Hex } from '@hookwarden/hook-core';

export { runRecordSchema, type RunRecord };

/** Events whose matcher input is a tool name. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse']);

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
  policyRevision: string | null;
  policyDigest: string | null;
  sessionId: string | null;
  turnId: string | null;
  durationMs: number | null;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Records the spool dropped just before this one (cap reached). */
  gap?: { dropped: number; fromSeq: number; toSeq: number } | null;
}

// The chain hash of a record: sha256 hex of its canonical JSON line (what the next record's prevHash names).
// NDJSON lines from the spool are already canonical and hashed as received; JSON bodies are re-canonicalized.
export function recordHashOf(value: unknown, line: string | null): string {
  return sha256Hex(line ?? canonicalJson(value));
}

// Extracts the indexed columns of a validated record (skipped runs have no start: their record time is used).
export function columnsOf(record: RunRecord, recordHash: string): HookRunColumns {
  return {
    id: record.id,
    startedAt: new Date(record.startedAt ?? record.recordedAt).toISOString(),
    seq: record.seq,
    prevHash: record.prevHash,
    recordHash,
    event: record.event,
    toolName: TOOL_EVENTS.has(record.event) ? record.matcherInput : null,
    hookKey: record.hook.key,
    hookHash: record.hook.hash,
    managed: record.hook.managed,
    status: record.status,
    skipReason: record.skipReason,
    decision: record.decision,
    policyRevision: record.policy.revision,
    policyDigest: record.policy.digest,
    sessionId: record.sessionId,
    turnId: record.turnId,
    durationMs: record.durationMs === null ? null : Math.round(record.durationMs),
    exitCode: record.exitCode,
    signal: record.signal,
    timedOut: record.timedOut,
    gap: record.gap ?? null,
  };
}
