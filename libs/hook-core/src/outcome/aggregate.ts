// Combines parsed runs of one event into its outcome, deterministically in configured order.
import type { HookEvent } from '../types';
import type { HookOutcome, ParsedRun } from './types';

/** One parsed run with what the aggregate needs to know about its hook. */
export interface AggregateInput {
  parsed: ParsedRun;
  /** Id used in Stop/SubagentStop continuation prompts (`hook_run_id`). */
  hookRunId: string;
}

/** Per-run effect on the aggregate, for the run record. */
export type RunEffect =
  | 'none'
  | 'deny'
  | 'allow'
  | 'rewrite'
  | 'rewrite_ignored'
  | 'block'
  | 'feedback'
  | 'continuation'
  | 'continuation_overridden'
  | 'stop'
  | 'context'
  | 'failed';

/** Result of aggregation: the outcome and each run's decision/effect (same order as the input). */
export interface Aggregated {
  outcome: HookOutcome;
  effects: { decision?: string; effect: RunEffect }[];
}

/** Canonical JSON used to compare rewrites. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Aggregate the runs of one event (inputs in configured order). `toolInput` feeds the PreToolUse block text. */
export function aggregate(event: HookEvent, runs: readonly AggregateInput[], toolInput?: unknown): Aggregated {
  const outcome: HookOutcome = {
    event,
    reasons: [],
    continue: true,
    additionalContext: [],
    systemMessages: [],
    conflicts: [],
    failures: 0,
  };
  const effects: Aggregated['effects'] = runs.map(() => ({ effect: 'none' }));
  let firstRewrite = -1;
  let anyDeny = false;
  let anyStop = false;

  runs.forEach(({ parsed }, i) => {
    const eff = effects[i]!;
    if (parsed.systemMessage !== undefined) outcome.systemMessages.push(parsed.systemMessage);
    if (parsed.status === 'failed') {
      outcome.failures++;
      eff.effect = 'failed';
      return;
    }
    if (parsed.additionalContext !== undefined) {
      outcome.additionalContext.push(parsed.additionalContext);
      eff.effect = 'context';
    }
    if (event === 'SessionEnd') return;
    if (parsed.stop && event !== 'PostToolUse') {
      anyStop = true;
      outcome.continue = false;
      if (outcome.stopReason === undefined && parsed.stop.stopReason !== undefined)
        outcome.stopReason = parsed.stop.stopReason;
      eff.effect = 'stop';
    }
    if (parsed.block) {
      outcome.reasons.push(parsed.block.reason);
      if (event === 'PreToolUse' || event === 'PermissionRequest') {
        anyDeny = true;
        eff.decision = 'deny';
        eff.effect = 'deny';
      } else {
        eff.decision = 'block';
        if (eff.effect !== 'stop')
          eff.effect =
            event === 'Stop' || event === 'SubagentStop'
              ? 'continuation'
              : event === 'PostToolUse'
                ? 'feedback'
                : 'block';
      }
    } else if (parsed.allow) {
      eff.decision = 'allow';
      eff.effect = 'allow';
      if (event === 'PreToolUse') {
        eff.effect = 'rewrite';
        if (firstRewrite < 0) firstRewrite = i;
      }
    }
    if (event === 'PostToolUse' && parsed.stop) {
      outcome.continue = false;
      if (outcome.stopReason === undefined && parsed.stop.stopReason !== undefined)
        outcome.stopReason = parsed.stop.stopReason;
      if (!parsed.block) eff.effect = 'stop';
    }
  });

  const reason = outcome.reasons[0];
  switch (event) {
    case 'PreToolUse': {
      if (anyDeny) {
        outcome.decision = 'deny';
        outcome.reason = reason;
        const cmd = commandOf(toolInput);
        outcome.blockMessage = `Command blocked by PreToolUse hook: ${reason}.${cmd !== undefined ? ` Command: ${cmd}` : ''}`;
        effects.forEach((e) => {
          if (e.effect === 'rewrite') e.effect = 'rewrite_ignored';
        });
        if (firstRewrite >= 0) outcome.conflicts.push('updatedInput ignored: a PreToolUse hook denied the call');
      } else if (firstRewrite >= 0) {
        outcome.decision = 'allow';
        const winner = runs[firstRewrite]!.parsed.updatedInput;
        outcome.updatedInput = winner;
        const key = canonical(winner);
        runs.forEach(({ parsed, hookRunId }, i) => {
          if (i === firstRewrite || effects[i]!.effect !== 'rewrite') return;
          effects[i]!.effect = 'rewrite_ignored';
          if (canonical(parsed.updatedInput) !== key)
            outcome.conflicts.push(
              `conflicting updatedInput from ${hookRunId} ignored: ${runs[firstRewrite]!.hookRunId} (first in configured order) wins`,
            );
        });
      }
      break;
    }
    case 'PermissionRequest':
      if (anyDeny) {
        outcome.decision = 'deny';
        outcome.reason = reason;
      } else if (effects.some((e) => e.decision === 'allow')) {
        outcome.decision = 'allow';
      }
      break;
    case 'PostToolUse':
      if (reason !== undefined) {
        outcome.decision = 'block';
        outcome.reason = reason;
        outcome.toolResultReplacement = outcome.reasons.join('\n\n');
      } else if (!outcome.continue) {
        outcome.toolResultReplacement = outcome.stopReason ?? 'PostToolUse hook stopped processing of the tool result';
      }
      break;
    case 'UserPromptSubmit':
      if (reason !== undefined) {
        outcome.decision = 'block';
        outcome.reason = reason;
      }
      break;
    case 'Stop':
    case 'SubagentStop':
      if (anyStop) {
        // continue:false from any hook takes precedence over continuation requests.
        effects.forEach((e) => {
          if (e.effect === 'continuation') e.effect = 'continuation_overridden';
        });
        if (reason !== undefined) outcome.conflicts.push('continuation ignored: a hook returned continue:false');
      } else if (reason !== undefined) {
        outcome.decision = 'block';
        outcome.reason = reason;
        outcome.continuation = runs
          .map(({ parsed, hookRunId }) =>
            parsed.status === 'ok' && parsed.block
              ? `<hook_prompt hook_run_id="${escapeAttr(hookRunId)}">${parsed.block.reason}</hook_prompt>`
              : undefined,
          )
          .filter((s): s is string => s !== undefined)
          .join('\n');
      }
      break;
    case 'SessionStart':
    case 'SubagentStart':
    case 'PreCompact':
    case 'PostCompact':
    case 'SessionEnd':
      break;
  }
  return { outcome, effects };
}

/** The command text of a Bash/apply_patch tool input, if any. */
function commandOf(toolInput: unknown): string | undefined {
  if (toolInput && typeof toolInput === 'object' && typeof (toolInput as { command?: unknown }).command === 'string')
    return (toolInput as { command: string }).command;
  return undefined;
}

/** Escape a value for an XML-like attribute. */
function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
