// Shapes of a parsed hook run and of the per-event aggregate outcome.
import type { HookEvent } from '../types';

/** How a run's output was read. */
export type ParseVerdict =
  'no_output' | 'json' | 'plain_text_context' | 'plain_text_ignored' | 'exit2_stderr' | 'invalid' | 'not_run';

/** What one run asked for, after validation against its event's rules. */
export interface ParsedRun {
  /** `ok`: the output was valid (whatever it decided); `failed`: non-blocking failure, the action continues. */
  status: 'ok' | 'failed';
  verdict: ParseVerdict;
  /** Why the run failed (timeout, exit code, unsupported field, invalid JSON...). */
  error?: string;
  /** Deny (PreToolUse/PermissionRequest) or block (PostToolUse/UserPromptSubmit/Stop/SubagentStop) with its reason. */
  block?: { reason: string; via: 'exit2' | 'json' };
  /** PermissionRequest `allow`, or PreToolUse `allow` carrying `updatedInput`. */
  allow?: boolean;
  updatedInput?: unknown;
  additionalContext?: string;
  /** `continue: false` (honoured where the event supports it). */
  stop?: { stopReason?: string };
  systemMessage?: string;
  /** Things the output contained that were accepted but have no effect (never silent). */
  notes: string[];
}

/**
 * Aggregate outcome of one event, built in configured hook order whatever order the hooks finished in.
 * - `decision`: `deny` (PreToolUse, PermissionRequest: any deny wins), `allow` (PermissionRequest allow,
 *   or a PreToolUse rewrite), `block` (PostToolUse feedback, UserPromptSubmit block, Stop/SubagentStop
 *   continuation); absent when no hook decided.
 * - `reason`: the deciding reason (first deny/block in configured order); `reasons`: every one, in order.
 * - `updatedInput`: the winning PreToolUse rewrite (first in configured order), absent when denied.
 * - `blockMessage`: the text the model sees for a denied tool call (`Command blocked by PreToolUse hook: …`).
 * - `toolResultReplacement`: PostToolUse text that replaces the tool result (block feedback or stop text).
 * - `continuation`: Stop/SubagentStop continuation prompt (`<hook_prompt hook_run_id="…">reason</hook_prompt>` per reason).
 * - `continue: false` + `stopReason`: a hook stopped processing (events that honour it).
 * - `additionalContext`: model-visible context in configured order (spilled previews where oversized).
 * - `systemMessages`: UI warnings in configured order.
 * - `conflicts`: ignored rewrites and other resolved conflicts (reported, never silent).
 * - `failures`: number of runs that failed or timed out (details in the run records).
 */
export interface HookOutcome {
  event: HookEvent;
  decision?: 'deny' | 'allow' | 'block';
  reason?: string;
  reasons: string[];
  updatedInput?: unknown;
  blockMessage?: string;
  toolResultReplacement?: string;
  continuation?: string;
  continue: boolean;
  stopReason?: string;
  additionalContext: string[];
  systemMessages: string[];
  conflicts: string[];
  failures: number;
}
