// Builds the JSON object a hook receives on stdin: common fields plus the event's own fields.
import { canonicalToolName } from '../match/matcher';
import { EVENT_SPEC } from '../event-spec';
import type { HookEvent } from '../types';

const COMMON = ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'model'];

/**
 * Shell tool input as hooks see it: unified exec (`exec_command`) sends its command line as `cmd`; Bash hooks read
 * `tool_input.command` (and block messages end with `Command: <cmd>`), so `cmd` is reported as `command`.
 */
function shellToolInput(toolInput: unknown): unknown {
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) return toolInput;
  const { cmd, ...rest } = toolInput as Record<string, unknown>;
  if (typeof cmd !== 'string' || typeof rest.command === 'string') return toolInput;
  return { command: cmd, ...rest };
}

/** The event input with the spec's fields only: unknown top-level fields are dropped and listed. */
export function buildEventInput(
  event: HookEvent,
  raw: Readonly<Record<string, unknown>>,
  defaults: { cwd?: string } = {},
): { input: Record<string, unknown>; ignoredFields: string[] } {
  const spec = EVENT_SPEC[event];
  const fields = spec.inputFields;
  const input: Record<string, unknown> = {
    session_id: typeof raw.session_id === 'string' ? raw.session_id : '',
    transcript_path: typeof raw.transcript_path === 'string' ? raw.transcript_path : null,
    cwd: typeof raw.cwd === 'string' && raw.cwd !== '' ? raw.cwd : (defaults.cwd ?? process.cwd()),
    hook_event_name: event,
  };
  // SessionEnd carries no model (reference behaviour).
  if (spec.hasModel) input.model = typeof raw.model === 'string' ? raw.model : '';
  for (const [name, def] of Object.entries(fields)) input[name] = raw[name] === undefined ? def : raw[name];
  if (typeof input.tool_name === 'string') {
    input.tool_name = canonicalToolName(input.tool_name);
    if (input.tool_name === 'Bash') input.tool_input = shellToolInput(input.tool_input);
  }
  const ignoredFields = Object.keys(raw).filter((k) => !(k in fields) && !COMMON.includes(k));
  return { input, ignoredFields };
}
