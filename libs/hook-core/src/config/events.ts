// Per-event metadata from the spec: snake names, which events honour a matcher, which can emit additionalContext.
import { HOOK_EVENTS, type HookEvent } from '../types';

const EVENT_SET: ReadonlySet<string> = new Set(HOOK_EVENTS);

/** Events whose `matcher` filters something (the spec's matcher table); others ignore it. */
export const MATCHER_EVENTS: ReadonlySet<HookEvent> = new Set<HookEvent>([
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SessionStart',
  'SessionEnd',
  'SubagentStart',
  'SubagentStop',
]);

/** Events that can produce additionalContext (so `additionalContextLimit` means something). */
export const CONTEXT_EVENTS: ReadonlySet<HookEvent> = new Set<HookEvent>([
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'SubagentStart',
  'SessionStart',
]);

/** Default handler timeout in seconds. */
export const DEFAULT_TIMEOUT_SEC = 600;
/** SessionEnd default and cap in seconds. */
export const SESSION_END_DEFAULT_TIMEOUT_SEC = 1;
export const SESSION_END_MAX_TIMEOUT_SEC = 3;
/** Default additionalContext limit in tokens (a handler value equal to it is the same as unset). */
export const DEFAULT_ADDITIONAL_CONTEXT_LIMIT = 2500;
/** Timeouts above this many seconds are suspicious (likely written in milliseconds). */
export const SUSPICIOUS_TIMEOUT_SEC = 3600;

// Type guard: is this string one of the spec's events?
export function isHookEvent(name: string): name is HookEvent {
  return EVENT_SET.has(name);
}

// snake_case name of an event, as used in trust keys (`PreToolUse` → `pre_tool_use`).
export function eventSnake(event: HookEvent): string {
  return event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
}

// Normalized timeout in seconds actually applied to a handler (0 → 1, SessionEnd default 1 and cap 3).
export function normalizeTimeout(event: HookEvent, timeout: number | undefined): number {
  if (event === 'SessionEnd') {
    if (timeout === undefined) return SESSION_END_DEFAULT_TIMEOUT_SEC;
    return Math.min(Math.max(Math.floor(timeout), 1), SESSION_END_MAX_TIMEOUT_SEC);
  }
  if (timeout === undefined) return DEFAULT_TIMEOUT_SEC;
  return Math.max(Math.floor(timeout), 1);
}
