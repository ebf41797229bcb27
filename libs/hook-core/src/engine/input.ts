// Builds the JSON object a hook receives on stdin: common fields plus the event's own fields.
import { canonicalToolName } from '../match/matcher';
import type { HookEvent } from '../types';

type FieldDefault = string | boolean | null;
/** Event-specific fields (with the default used when the caller omits one). */
const EVENT_FIELDS: Readonly<Record<HookEvent, Readonly<Record<string, FieldDefault>>>> = {
  SessionStart: { source: 'startup', permission_mode: 'default' },
  SessionEnd: { reason: 'other' },
  SubagentStart: { turn_id: '', agent_id: '', agent_type: '', permission_mode: 'default' },
  SubagentStop: {
    turn_id: '',
    agent_id: '',
    agent_type: '',
    agent_transcript_path: null,
    stop_hook_active: false,
    last_assistant_message: null,
    permission_mode: 'default',
  },
  PreToolUse: { turn_id: '', tool_name: '', tool_use_id: '', tool_input: null, permission_mode: 'default' },
  PermissionRequest: { turn_id: '', tool_name: '', tool_input: null, permission_mode: 'default' },
  PostToolUse: {
    turn_id: '',
    tool_name: '',
    tool_use_id: '',
    tool_input: null,
    tool_response: null,
    permission_mode: 'default',
  },
  PreCompact: { turn_id: '', trigger: 'manual' },
  PostCompact: { turn_id: '', trigger: 'manual' },
  UserPromptSubmit: { turn_id: '', prompt: '', permission_mode: 'default' },
  Stop: { turn_id: '', stop_hook_active: false, last_assistant_message: null, permission_mode: 'default' },
};
const COMMON = ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'model'];

/** The event input with the spec's fields only: unknown top-level fields are dropped and listed. */
export function buildEventInput(
  event: HookEvent,
  raw: Readonly<Record<string, unknown>>,
  defaults: { cwd?: string } = {},
): { input: Record<string, unknown>; ignoredFields: string[] } {
  const fields = EVENT_FIELDS[event];
  const input: Record<string, unknown> = {
    session_id: typeof raw.session_id === 'string' ? raw.session_id : '',
    transcript_path: typeof raw.transcript_path === 'string' ? raw.transcript_path : null,
    cwd: typeof raw.cwd === 'string' && raw.cwd !== '' ? raw.cwd : (defaults.cwd ?? process.cwd()),
    hook_event_name: event,
  };
  // SessionEnd carries no model (reference behaviour).
  if (event !== 'SessionEnd') input.model = typeof raw.model === 'string' ? raw.model : '';
  for (const [name, def] of Object.entries(fields)) input[name] = raw[name] === undefined ? def : raw[name];
  if (typeof input.tool_name === 'string') input.tool_name = canonicalToolName(input.tool_name);
  const ignoredFields = Object.keys(raw).filter((k) => !(k in fields) && !COMMON.includes(k));
  return { input, ignoredFields };
}
