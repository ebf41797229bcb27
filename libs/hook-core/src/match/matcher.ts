// Matcher semantics per event: which input field a matcher filters, exact alternatives vs regex, tool aliases.
import { compileConfigMatcher } from '../config/matcher';
import { EVENT_SPEC } from '../event-spec';
import { HOOK_EVENTS, type HookEvent } from '../types';

/** A compiled matcher: true when the hook should fire for the given candidate names. */
export type MatcherFn = (candidates: readonly string[]) => boolean;

/** The input field each event's matcher filters; `undefined` for events that ignore matchers. */
export const MATCHER_FIELD: Readonly<Record<HookEvent, string | undefined>> = Object.fromEntries(
  HOOK_EVENTS.map((e) => [e, EVENT_SPEC[e].matcherField ?? undefined]),
) as Record<HookEvent, string | undefined>;

/** Tool names that are shell or unified-exec paths: they are reported and matched as `Bash`. */
export const SHELL_TOOL_NAMES: ReadonlySet<string> = new Set([
  'Bash',
  'shell',
  'local_shell',
  'container.exec',
  'shell_command',
  'exec_command',
  'unified_exec',
]);

/** Extra names a canonical tool also matches as (apply_patch → Edit/Write, spawn_agent → Agent). */
const TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  apply_patch: ['apply_patch', 'Edit', 'Write'],
  spawn_agent: ['spawn_agent', 'Agent'],
};

const MATCH_ALL: MatcherFn = () => true;
const cache = new Map<string, MatcherFn | Error>();

/** Whether an event honours `matcher` at all (UserPromptSubmit and Stop ignore it). */
export function eventUsesMatcher(event: HookEvent): boolean {
  return MATCHER_FIELD[event] !== undefined;
}

/** Canonical tool name as hooks see it: shell and unified-exec tools become `Bash`. */
export function canonicalToolName(toolName: string): string {
  return SHELL_TOOL_NAMES.has(toolName) ? 'Bash' : toolName;
}

/** Names a matcher is tested against for a canonical tool name (the name plus its aliases). */
export function toolMatchCandidates(canonical: string): readonly string[] {
  return TOOL_ALIASES[canonical] ?? [canonical];
}

/** Compile a matcher string (cached): the same compiler discovery validates with, so what loads also runs. */
export function compileMatcher(matcher: string | undefined | null): MatcherFn | Error {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return MATCH_ALL;
  const hit = cache.get(matcher);
  if (hit) return hit;
  const compiled = compileConfigMatcher(matcher);
  const fn: MatcherFn | Error = compiled.ok
    ? (candidates) => candidates.some((c) => compiled.matcher.test(c))
    : new Error(`invalid matcher regex ${JSON.stringify(matcher)}: ${compiled.error}`);
  cache.set(matcher, fn);
  return fn;
}

/** What the matcher sees for an event: the value(s) it is tested against, or undefined when matchers are ignored. */
export function matcherSubject(
  event: HookEvent,
  input: Readonly<Record<string, unknown>>,
): { value: string; candidates: readonly string[] } | undefined {
  const field = MATCHER_FIELD[event];
  if (field === undefined) return undefined;
  const raw = input[field];
  const value = typeof raw === 'string' ? raw : '';
  if (field === 'tool_name') return { value, candidates: toolMatchCandidates(canonicalToolName(value)) };
  return { value, candidates: [value] };
}

/** Whether a matcher fires for an event input; matchers are ignored (always fire) for events without a matcher field. */
export function matcherMatches(
  matcher: string | undefined | null,
  subject: { candidates: readonly string[] } | undefined,
): boolean | Error {
  if (subject === undefined) return true;
  const fn = compileMatcher(matcher);
  if (fn instanceof Error) return fn;
  return fn(subject.candidates);
}
