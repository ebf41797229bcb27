// EVENT_SPEC: every per-event fact of the spec in one table the compiler checks; every other per-event set derives from it.
import type { HookEvent } from './types';

/** Default of an event-specific input field (used when the caller omits it). */
export type InputFieldDefault = string | boolean | null;

/** The input field an event's matcher filters. */
export type MatcherField = 'tool_name' | 'trigger' | 'source' | 'reason' | 'agent_type';

/** What the spec (and the reference engine) says about one event. */
export interface EventSpec {
  /** snake_case name used in trust keys and hook run ids (`pre_tool_use`). */
  readonly snake: string;
  /** Position in the reference engine's own event order (its hook list and `hook_run_id` numbering). */
  readonly referenceOrder: number;
  /** The input field the matcher filters; `null` when the event ignores matchers. */
  readonly matcherField: MatcherField | null;
  /** `hookSpecificOutput.additionalContext` reaches the model (so `additionalContextLimit` means something). */
  readonly producesContext: boolean;
  /** Plain (non-JSON) stdout: developer context, ignored (noted), or an invalid run. */
  readonly plainText: 'context' | 'ignored' | 'invalid';
  /** Exit 2 with a stderr reason blocks / denies / gives feedback / continues. */
  readonly exit2Blocks: boolean;
  /** `continue: false` stops processing (otherwise it is parsed and noted). */
  readonly honoursContinueFalse: boolean;
  /** Timeout in seconds when a handler sets none. */
  readonly defaultTimeoutSec: number;
  /** Largest timeout applied, in seconds (SessionEnd: 3). */
  readonly maxTimeoutSec?: number;
  /** Whether the input carries `model` (SessionEnd does not). */
  readonly hasModel: boolean;
  /** Event-specific input fields and their defaults. */
  readonly inputFields: Readonly<Record<string, InputFieldDefault>>;
}

const TOOL_FIELDS = { turn_id: '', tool_name: '', tool_use_id: '', tool_input: null, permission_mode: 'default' };

/** The table. `satisfies` makes the compiler check that every event has every fact. */
export const EVENT_SPEC = {
  PreToolUse: {
    snake: 'pre_tool_use',
    referenceOrder: 0,
    matcherField: 'tool_name',
    producesContext: true,
    plainText: 'ignored',
    exit2Blocks: true,
    honoursContinueFalse: false,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: TOOL_FIELDS,
  },
  PermissionRequest: {
    snake: 'permission_request',
    referenceOrder: 1,
    matcherField: 'tool_name',
    producesContext: false,
    plainText: 'ignored',
    exit2Blocks: true,
    honoursContinueFalse: false,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', tool_name: '', tool_input: null, permission_mode: 'default' },
  },
  PostToolUse: {
    snake: 'post_tool_use',
    referenceOrder: 2,
    matcherField: 'tool_name',
    producesContext: true,
    plainText: 'ignored',
    exit2Blocks: true,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { ...TOOL_FIELDS, tool_response: null },
  },
  PreCompact: {
    snake: 'pre_compact',
    referenceOrder: 3,
    matcherField: 'trigger',
    producesContext: false,
    plainText: 'ignored',
    exit2Blocks: false,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', trigger: 'manual' },
  },
  PostCompact: {
    snake: 'post_compact',
    referenceOrder: 4,
    matcherField: 'trigger',
    producesContext: false,
    plainText: 'ignored',
    exit2Blocks: false,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', trigger: 'manual' },
  },
  SessionStart: {
    snake: 'session_start',
    referenceOrder: 5,
    matcherField: 'source',
    producesContext: true,
    plainText: 'context',
    exit2Blocks: false,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { source: 'startup', permission_mode: 'default' },
  },
  SessionEnd: {
    snake: 'session_end',
    referenceOrder: 6,
    matcherField: 'reason',
    producesContext: false,
    plainText: 'ignored',
    exit2Blocks: false,
    honoursContinueFalse: false,
    defaultTimeoutSec: 1,
    maxTimeoutSec: 3,
    hasModel: false,
    inputFields: { reason: 'other' },
  },
  UserPromptSubmit: {
    snake: 'user_prompt_submit',
    referenceOrder: 7,
    matcherField: null,
    producesContext: true,
    plainText: 'context',
    exit2Blocks: true,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', prompt: '', permission_mode: 'default' },
  },
  SubagentStart: {
    snake: 'subagent_start',
    referenceOrder: 8,
    matcherField: 'agent_type',
    producesContext: true,
    plainText: 'context',
    exit2Blocks: false,
    honoursContinueFalse: false,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', agent_id: '', agent_type: '', permission_mode: 'default' },
  },
  SubagentStop: {
    snake: 'subagent_stop',
    referenceOrder: 9,
    matcherField: 'agent_type',
    producesContext: false,
    plainText: 'invalid',
    exit2Blocks: true,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: {
      turn_id: '',
      agent_id: '',
      agent_type: '',
      agent_transcript_path: null,
      stop_hook_active: false,
      last_assistant_message: null,
      permission_mode: 'default',
    },
  },
  Stop: {
    snake: 'stop',
    referenceOrder: 10,
    matcherField: null,
    producesContext: false,
    plainText: 'invalid',
    exit2Blocks: true,
    honoursContinueFalse: true,
    defaultTimeoutSec: 600,
    hasModel: true,
    inputFields: { turn_id: '', stop_hook_active: false, last_assistant_message: null, permission_mode: 'default' },
  },
} as const satisfies Record<HookEvent, EventSpec>;

/** The facts of one event. */
export function eventSpec(event: HookEvent): EventSpec {
  return EVENT_SPEC[event];
}

/** Events for which a fact holds, as a set (for the derived per-event sets). */
export function eventsWhere(pred: (spec: EventSpec) => boolean): ReadonlySet<HookEvent> {
  return new Set((Object.keys(EVENT_SPEC) as HookEvent[]).filter((e) => pred(EVENT_SPEC[e])));
}
