// Reads one run's exit status and output according to its event's rules (spec + reference behaviour).
import { MAX_JSON_DEPTH, tooDeepAt } from '../config/json-located';
import { eventsWhere } from '../event-spec';
import type { HookEvent } from '../types';
import type { RunResult } from '../run/runner';
import type { ParsedRun } from './types';

/** Events where exit 2 with a stderr reason blocks / gives feedback / continues. */
const EXIT2_BLOCKS = eventsWhere((s) => s.exit2Blocks);
/** Events where plain stdout becomes developer context. */
const PLAIN_TEXT_CONTEXT = eventsWhere((s) => s.plainText === 'context');
/** Events where plain stdout is invalid (JSON expected). */
const PLAIN_TEXT_INVALID = eventsWhere((s) => s.plainText === 'invalid');
/** Events whose JSON `hookSpecificOutput.additionalContext` is delivered. */
const CONTEXT_EVENTS = eventsWhere((s) => s.producesContext);
/** Events that honour `continue: false`. */
const STOP_EVENTS = eventsWhere((s) => s.honoursContinueFalse);

/** Whether the event can produce model-visible additionalContext (additionalContextLimit is meaningful). */
export function eventProducesContext(event: HookEvent): boolean {
  return CONTEXT_EVENTS.has(event);
}

/** Kebab-case event label used in messages, as the reference engine words them ("invalid pre-tool-use JSON output"). */
function eventLabel(event: HookEvent): string {
  return event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
}

/** A failed parse result. */
function fail(verdict: ParsedRun['verdict'], error: string, notes: string[] = []): ParsedRun {
  return { status: 'failed', verdict, error, notes };
}

/** Whether a value is a plain JSON object. */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Non-empty trimmed string or undefined. */
function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** Interpret a finished (or not started) run for an event. `toolName` is the canonical tool for tool events. */
export function parseRun(
  event: HookEvent,
  run: RunResult,
  context: { toolName?: string; timeoutSec?: number } = {},
): ParsedRun {
  const { toolName } = context;
  if (run.spawnError !== undefined) return fail('not_run', `hook could not be started: ${run.spawnError}`);
  if (run.timedOut) return fail('invalid', `hook timed out after ${context.timeoutSec ?? '?'}s`);
  if (run.exitCode === null) return fail('invalid', `hook terminated by signal ${run.signal ?? 'unknown'}`);
  if (run.exitCode === 2) return parseExit2(event, run);
  if (run.exitCode !== 0) return fail('invalid', `hook exited with code ${run.exitCode}`);
  const text = run.stdout.trim();
  if (text === '') return { status: 'ok', verdict: 'no_output', notes: [] };
  if (text.startsWith('{') || text.startsWith('[')) {
    if (tooDeepAt(text, MAX_JSON_DEPTH) >= 0)
      return fail('invalid', `invalid ${eventLabel(event)} JSON output: nested deeper than ${MAX_JSON_DEPTH} levels`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail('invalid', `invalid ${eventLabel(event)} JSON output`);
    }
    if (!isObject(json)) return fail('invalid', `invalid ${eventLabel(event)} JSON output: not an object`);
    return parseJson(event, json, toolName);
  }
  if (PLAIN_TEXT_CONTEXT.has(event))
    return { status: 'ok', verdict: 'plain_text_context', additionalContext: text, notes: [] };
  if (PLAIN_TEXT_INVALID.has(event))
    return fail('invalid', `invalid ${eventLabel(event)} hook JSON output (plain text)`);
  return { status: 'ok', verdict: 'plain_text_ignored', notes: ['plain text on stdout is ignored for this event'] };
}

/** Exit code 2: block/feedback from stderr where the event supports it. */
function parseExit2(event: HookEvent, run: RunResult): ParsedRun {
  const reason = run.stderr.trim();
  if (!EXIT2_BLOCKS.has(event)) {
    return fail('exit2_stderr', `hook exited with code 2, which does not block ${event}${reason ? `: ${reason}` : ''}`);
  }
  if (reason === '')
    return fail('exit2_stderr', 'hook exited with code 2 but did not write a blocking reason to stderr');
  return { status: 'ok', verdict: 'exit2_stderr', block: { reason, via: 'exit2' }, notes: [] };
}

/** Validate the JSON output of an event and extract its effects. */
function parseJson(event: HookEvent, json: Record<string, unknown>, toolName?: string): ParsedRun {
  const bad = (msg: string): ParsedRun => fail('invalid', `invalid ${eventLabel(event)} JSON output: ${msg}`);
  const unsupported = (what: string): ParsedRun => fail('invalid', `${event} hook returned unsupported ${what}`);
  const notes: string[] = [];
  const out: ParsedRun = { status: 'ok', verdict: 'json', notes };

  // Common fields: types first.
  if (json.continue !== undefined && typeof json.continue !== 'boolean') return bad('continue must be a boolean');
  if (json.stopReason !== undefined && json.stopReason !== null && typeof json.stopReason !== 'string')
    return bad('stopReason must be a string');
  if (json.systemMessage !== undefined && json.systemMessage !== null && typeof json.systemMessage !== 'string')
    return bad('systemMessage must be a string');
  if (json.suppressOutput !== undefined && typeof json.suppressOutput !== 'boolean')
    return bad('suppressOutput must be a boolean');
  if (json.decision !== undefined && json.decision !== null && typeof json.decision !== 'string')
    return bad('decision must be a string');
  if (json.reason !== undefined && json.reason !== null && typeof json.reason !== 'string')
    return bad('reason must be a string');
  const hso = json.hookSpecificOutput;
  if (hso !== undefined && hso !== null && !isObject(hso)) return bad('hookSpecificOutput must be an object');
  const spec: Record<string, unknown> = isObject(hso) ? hso : {};
  if (spec.hookEventName !== undefined && spec.hookEventName !== event)
    return bad(`hookSpecificOutput.hookEventName is ${JSON.stringify(spec.hookEventName)}, expected "${event}"`);
  if (
    spec.additionalContext !== undefined &&
    spec.additionalContext !== null &&
    typeof spec.additionalContext !== 'string'
  )
    return bad('hookSpecificOutput.additionalContext must be a string');

  const stopFalse = json.continue === false;
  const stopReason = typeof json.stopReason === 'string' ? json.stopReason : undefined;
  const suppress = json.suppressOutput === true;
  if (typeof json.systemMessage === 'string' && json.systemMessage !== '') out.systemMessage = json.systemMessage;

  // Unsupported common fields per event.
  if (event === 'PreToolUse' || event === 'PermissionRequest') {
    if (stopFalse) return unsupported('continue:false');
    if (stopReason !== undefined) return unsupported('stopReason');
    if (suppress) return unsupported('suppressOutput');
  } else if (event === 'PostToolUse') {
    if (suppress) return unsupported('suppressOutput');
    if (spec.updatedMCPToolOutput !== undefined) return unsupported('updatedMCPToolOutput');
  } else if (suppress) {
    notes.push('suppressOutput is parsed but not implemented');
  }
  if (json.decision === 'approve') return unsupported('decision:approve (legacy)');

  // continue:false where the event honours it.
  if (stopFalse) {
    if (STOP_EVENTS.has(event)) out.stop = stopReason !== undefined ? { stopReason } : {};
    else notes.push(`continue:false does not stop ${event}`);
  }

  // additionalContext.
  const ctx =
    typeof spec.additionalContext === 'string' && spec.additionalContext !== '' ? spec.additionalContext : undefined;
  if (ctx !== undefined) {
    if (CONTEXT_EVENTS.has(event)) out.additionalContext = ctx;
    else notes.push(`additionalContext is ignored for ${event}`);
  }

  switch (event) {
    case 'PreToolUse':
      return parsePreToolUse(json, spec, out, toolName, unsupported, bad);
    case 'PermissionRequest':
      return parsePermissionRequest(json, spec, out, unsupported, bad);
    case 'PostToolUse':
    case 'UserPromptSubmit':
    case 'Stop':
    case 'SubagentStop':
      return parseLegacyBlock(json, out, bad);
    case 'SessionStart':
    case 'SubagentStart':
    case 'PreCompact':
    case 'PostCompact':
    case 'SessionEnd':
      if (json.decision !== undefined && json.decision !== null) notes.push(`decision is ignored for ${event}`);
      return out;
  }
}

/** `{decision:"block", reason}` for PostToolUse / UserPromptSubmit / Stop / SubagentStop. */
function parseLegacyBlock(json: Record<string, unknown>, out: ParsedRun, bad: (m: string) => ParsedRun): ParsedRun {
  if (json.decision === undefined || json.decision === null) return out;
  if (json.decision !== 'block') return bad(`unsupported decision ${JSON.stringify(json.decision)}`);
  const reason = nonEmpty(json.reason);
  if (reason === undefined) return bad('decision:block without a non-empty reason');
  out.block = { reason, via: 'json' };
  return out;
}

/** PreToolUse: deny (new and legacy shapes), allow+updatedInput, additionalContext. */
function parsePreToolUse(
  json: Record<string, unknown>,
  spec: Record<string, unknown>,
  out: ParsedRun,
  toolName: string | undefined,
  unsupported: (m: string) => ParsedRun,
  bad: (m: string) => ParsedRun,
): ParsedRun {
  const pd = spec.permissionDecision;
  const hasUpdated = spec.updatedInput !== undefined;
  if (pd !== undefined && pd !== null && typeof pd !== 'string') return bad('permissionDecision must be a string');
  if (pd === 'ask') return unsupported('permissionDecision:ask');
  if (pd === 'deny') {
    if (hasUpdated) return bad('updatedInput is only allowed with permissionDecision:"allow"');
    const reason = nonEmpty(spec.permissionDecisionReason);
    if (reason === undefined) return bad('deny without a non-empty permissionDecisionReason');
    out.block = { reason, via: 'json' };
  } else if (pd === 'allow') {
    if (!hasUpdated) return unsupported('permissionDecision:allow (without updatedInput)');
    const u = spec.updatedInput;
    if (toolName === 'Bash' || toolName === 'apply_patch') {
      if (
        typeof u !== 'object' ||
        u === null ||
        Array.isArray(u) ||
        typeof (u as { command?: unknown }).command !== 'string'
      )
        return bad(`updatedInput for ${toolName} must be an object with a string command`);
    } else if (typeof u !== 'object' || u === null || Array.isArray(u)) {
      return bad('updatedInput must be the replacement arguments object');
    }
    out.allow = true;
    out.updatedInput = u;
  } else if (pd !== undefined && pd !== null) {
    return unsupported(`permissionDecision:${pd}`);
  } else if (hasUpdated) {
    return bad('updatedInput is only allowed with permissionDecision:"allow"');
  }
  if (json.decision !== undefined && json.decision !== null) {
    if (json.decision !== 'block') return unsupported(`decision:${JSON.stringify(json.decision)}`);
    const reason = nonEmpty(json.reason);
    if (reason === undefined) return bad('decision:block without a non-empty reason');
    if (out.allow) return bad('decision:block conflicts with permissionDecision:"allow"');
    out.block ??= { reason, via: 'json' };
  }
  return out;
}

/** PermissionRequest: decision.behavior allow/deny; reserved fields fail. */
function parsePermissionRequest(
  json: Record<string, unknown>,
  spec: Record<string, unknown>,
  out: ParsedRun,
  unsupported: (m: string) => ParsedRun,
  bad: (m: string) => ParsedRun,
): ParsedRun {
  for (const reserved of ['updatedInput', 'updatedPermissions', 'interrupt'] as const) {
    if (spec[reserved] !== undefined) return unsupported(`${reserved} (reserved)`);
  }
  if (json.decision !== undefined && json.decision !== null)
    return unsupported(`top-level decision:${JSON.stringify(json.decision)}`);
  const d = spec.decision;
  if (d === undefined || d === null) return out;
  if (!isObject(d)) return bad('hookSpecificOutput.decision must be an object');
  for (const reserved of ['updatedInput', 'updatedPermissions', 'interrupt'] as const) {
    if (d[reserved] !== undefined) return unsupported(`decision.${reserved} (reserved)`);
  }
  if (d.behavior === 'allow') {
    out.allow = true;
  } else if (d.behavior === 'deny') {
    const message = nonEmpty(d.message);
    out.block = { reason: message ?? 'Denied by a PermissionRequest hook', via: 'json' };
  } else {
    return bad(`decision.behavior must be "allow" or "deny", got ${JSON.stringify(d.behavior)}`);
  }
  return out;
}
