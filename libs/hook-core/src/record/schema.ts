// The run-record JSON schema (zod): one record per handler considered for an event. The API validates uploads with it.
import { z } from 'zod';
import { HOOK_EVENTS } from '../types';

/** Captured output of one stream, as the capture policy allows. */
export const outputCaptureSchema = z.object({
  /** Bytes captured (up to the runner's cap). */
  bytes: z.number().int().nonnegative(),
  /** True when the stream exceeded the capture cap. */
  truncated: z.boolean(),
  /** sha256 hex of the captured bytes (before redaction). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Redacted, bounded excerpt (mode `excerpts` only). */
  excerpt: z.string().optional(),
});

/** The tool call a hook saw (tool events): what it was asked to judge. */
export const toolCallSchema = z.object({
  /** tool_name of the event input. */
  name: z.string(),
  /** tool_input as canonical JSON, redacted and bounded (mode `excerpts` only). */
  input: z.string().optional(),
  /** The command of a Bash call (or the patch of apply_patch), redacted and bounded (mode `excerpts` only). */
  command: z.string().optional(),
  /** sha256 hex of the canonical tool_input JSON (modes `digests` and `excerpts`). */
  inputSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** sha256 hex of the command text (modes `digests` and `excerpts`). */
  commandSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

/** A record before the sink sequences it. */
export const runRecordDraftSchema = z.object({
  schemaVersion: z.literal(1),
  /** Unique record id (uuid v4). */
  id: z.uuid(),
  recordedAt: z.iso.datetime(),
  /** Dispatch id shared by all records of one event dispatch. */
  dispatchId: z.uuid(),
  sessionId: z.string(),
  turnId: z.string().nullable(),
  event: z.enum(HOOK_EVENTS),
  /** What the matcher saw (tool name, source, trigger, reason, agent type); null for events without matchers. */
  matcherInput: z.string().nullable(),
  hook: z.object({
    key: z.string(),
    hash: z.string(),
    layer: z.enum(['system', 'user', 'project', 'session', 'plugin', 'managed']),
    sourceFile: z.string(),
    plugin: z.string().nullable(),
    matcher: z.string().nullable(),
    managed: z.boolean(),
    trust: z.enum(['managed', 'trusted', 'modified', 'untrusted', 'disabled']),
    timeoutSec: z.number(),
  }),
  /** ran: exited 0 or a valid exit 2; failed: non-blocking failure; timed_out: killed at the timeout; skipped: not run. */
  status: z.enum(['ran', 'skipped', 'failed', 'timed_out']),
  /** Why a hook did not run (`untrusted`, `modified`, `disabled`, `allow_managed_hooks_only`, `project_not_trusted`, `hooks_disabled: …`, `unsupported: …`, `duplicate: …`, `spawn_error`; `unreadable` on a `failed` managed hook that cannot be read, its `error` says why). */
  skipReason: z.string().nullable(),
  startedAt: z.iso.datetime().nullable(),
  durationMs: z.number().nonnegative().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  /** How the output was read (`no_output`, `json`, `plain_text_context`, `plain_text_ignored`, `exit2_stderr`, `invalid`, `not_run`). */
  verdict: z.string(),
  /** Why the run failed (engine message; redacted). */
  error: z.string().nullable(),
  /** This run's decision: deny, allow, block, or null. */
  decision: z.string().nullable(),
  /** Its effect on the aggregate (deny, rewrite, rewrite_ignored, feedback, continuation, stop, context, failed, none). */
  effect: z.string(),
  /** Accepted output that had no effect (plain text ignored, suppressOutput unimplemented, …): never silent. */
  notes: z.array(z.string()).default([]),
  /** Decision reason from the hook (excerpts mode only; redacted, bounded). */
  reason: z.string().nullable(),
  /** sha256 hex of the decision reason (digests and excerpts modes; absent without a reason). */
  reasonSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** Feedback shown besides the decision (systemMessage, stopReason; excerpts mode only; redacted, bounded). */
  feedback: z.string().nullable().optional(),
  /** sha256 hex of the feedback (digests and excerpts modes). */
  feedbackSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** The tool call the hook saw (tool events; null in capture mode `none`). */
  toolCall: toolCallSchema.nullable().optional(),
  stdout: outputCaptureSchema.nullable(),
  stderr: outputCaptureSchema.nullable(),
  /** File the additionalContext was spilled to. */
  spillPath: z.string().nullable(),
  /** Policy in force on the endpoint (from the spool sink's options or the managed layer). */
  policy: z.object({ revision: z.string().nullable(), digest: z.string().nullable() }),
  /** Set on runs of the shadow layer (observe mode): what the hook would have done; never applied. */
  shadow: z
    .object({
      /** The shadow release the layer came from (null when the layer does not name one). */
      releaseId: z.string().max(200).nullable(),
      version: z.string().max(200).nullable(),
      /** deny, block, rewrite, context, stop, feedback, continuation, allow, continue, error, timeout, … */
      wouldHave: z.string().max(64),
      /** Killed at the shadow budget (the enforced hooks' completion + grace). */
      killedAtBudget: z.boolean(),
    })
    .optional(),
});

/** A sequenced record as stored in the spool and uploaded: per-endpoint `seq`, hash chain, and any gap before it. */
export const runRecordSchema = runRecordDraftSchema.extend({
  /** Per-endpoint (per-spool) sequence number, strictly increasing by 1 (dropped records consume numbers). */
  seq: z.number().int().positive(),
  /** sha256 hex of the previous written record's canonical JSON line; null for the first record of a spool. */
  prevHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** Records dropped (spool full) immediately before this one: their seq range. */
  gap: z
    .object({ dropped: z.number().int().positive(), fromSeq: z.number().int(), toSeq: z.number().int() })
    .optional(),
});

export type OutputCapture = z.infer<typeof outputCaptureSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type RunRecordDraft = z.infer<typeof runRecordDraftSchema>;
export type RunRecord = z.infer<typeof runRecordSchema>;
