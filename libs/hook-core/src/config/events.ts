// Per-event metadata for configuration, derived from EVENT_SPEC: matcher and context events, timeouts, snake names.
import { EVENT_SPEC, eventSpec, eventsWhere } from '../event-spec';
import { HOOK_EVENTS, type HookEvent } from '../types';

const EVENT_SET: ReadonlySet<string> = new Set(HOOK_EVENTS);

/** Events whose `matcher` filters something (the spec's matcher table); others ignore it. */
export const MATCHER_EVENTS: ReadonlySet<HookEvent> = eventsWhere((s) => s.matcherField !== null);

/** Events that can produce additionalContext (so `additionalContextLimit` means something). */
export const CONTEXT_EVENTS: ReadonlySet<HookEvent> = eventsWhere((s) => s.producesContext);

/** Default handler timeout in seconds. */
export const DEFAULT_TIMEOUT_SEC: number = EVENT_SPEC.PreToolUse.defaultTimeoutSec;
/** SessionEnd default and cap in seconds. */
export const SESSION_END_DEFAULT_TIMEOUT_SEC: number = EVENT_SPEC.SessionEnd.defaultTimeoutSec;
export const SESSION_END_MAX_TIMEOUT_SEC: number = EVENT_SPEC.SessionEnd.maxTimeoutSec;
/** Default additionalContext limit in tokens (a handler value equal to it is the same as unset). */
export const DEFAULT_ADDITIONAL_CONTEXT_LIMIT = 2500;
/** Timeouts above this many seconds are suspicious (likely written in milliseconds). */
export const SUSPICIOUS_TIMEOUT_SEC = 3600;
/** The longest timeout of a managed (requirements.toml) hook: one day; a larger value is clamped to it with a warning. */
export const MAX_TIMEOUT_SEC = 86_400;

// Type guard: is this string one of the spec's events?
export function isHookEvent(name: string): name is HookEvent {
  return EVENT_SET.has(name);
}

// snake_case name of an event, as used in trust keys (`PreToolUse` → `pre_tool_use`).
export function eventSnake(event: HookEvent): string {
  return EVENT_SPEC[event].snake;
}

// Normalized timeout in seconds actually applied to a handler (0 → 1, the event's default and cap).
export function normalizeTimeout(event: HookEvent, timeout: number | undefined): number {
  const spec = eventSpec(event);
  if (timeout === undefined) return spec.defaultTimeoutSec;
  const t = Math.max(Math.floor(timeout), 1);
  return spec.maxTimeoutSec !== undefined ? Math.min(t, spec.maxTimeoutSec) : t;
}

// Timeout in seconds a handler actually runs with: the normalized value, clamped to MAX_TIMEOUT_SEC (the trust hash
// keeps the normalized value as written, so clamping never changes a hook's identity).
export function appliedTimeoutSec(event: HookEvent, timeout: number | undefined): number {
  return Math.min(normalizeTimeout(event, timeout), MAX_TIMEOUT_SEC);
}
