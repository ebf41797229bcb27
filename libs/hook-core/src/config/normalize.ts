// Lenient normalization of a `hooks` table (event → matcher groups → handlers): keep what is valid, warn precisely.
import type { HandlerConfig, HookEvent } from '../types';
import type { DiagnosticCollector, DocPath } from './diagnostics';
import {
  CONTEXT_EVENTS,
  isHookEvent,
  MATCHER_EVENTS,
  SESSION_END_MAX_TIMEOUT_SEC,
  SUSPICIOUS_TIMEOUT_SEC,
} from './events';
import { compileConfigMatcher, matcherLooksLikeExpression } from './matcher';
import { additionalContextIgnored, sessionEndClamped } from './messages';

/** A handler that survived validation, with its position in the file. */
export interface NormalizedHandler {
  index: number;
  handler: HandlerConfig;
  /** Why it cannot run even when trusted (`prompt`/`agent` type, `async: true`). */
  unsupported?: string;
  /** A managed handler that cannot be read as written: why (it is listed and recorded as failed, never run). */
  broken?: string;
}

/** A matcher group that survived validation (its index is its position as written). */
export interface NormalizedGroup {
  index: number;
  matcher?: string;
  handlers: NormalizedHandler[];
}

export interface NormalizedEvent {
  event: HookEvent;
  groups: NormalizedGroup[];
}

export interface NormalizeOptions {
  /** File name used inside reference-compatible warning texts. */
  file: string;
  /** Path of the hooks table in the document (`['hooks']`). */
  basePath: DocPath;
  /** Keys of the hooks table that are not events and are handled elsewhere (e.g. `state`, `managed_dir`). */
  ignoreKeys?: readonly string[];
}

const HANDLER_KEYS = new Set([
  'type',
  'command',
  'commandWindows',
  'command_windows',
  'timeout',
  'async',
  'statusMessage',
  'additionalContextLimit',
]);
const PROMPT_KEYS = new Set(['prompt', 'model']);
const GROUP_KEYS = new Set(['matcher', 'hooks']);

/** What an unknown handler key means in practice (keys seen in real Claude/Codex configs). */
const KEY_HINTS: Readonly<Record<string, string>> = {
  if: 'this condition is not supported: the handler runs whenever its group matches',
  args: 'argument arrays are not supported: the command runs as written, without these arguments',
  once: '`once` is not supported: the handler runs on every matching event',
  description: 'descriptions are ignored',
};

/** Longest value preview in a diagnostic. */
const MAX_SHOWN = 80;

// A short, always-printable preview of a configured value for a diagnostic (bigint-safe, bounded).
function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? typeof v);
  } catch {
    text = typeof v;
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

// Is this a plain JSON/TOML object?
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

// Warns about each key of `obj` outside `known`.
function warnUnknownKeys(
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: DocPath,
  what: string,
  out: DiagnosticCollector,
): void {
  for (const k of Object.keys(obj)) {
    if (known.has(k)) continue;
    const hint = KEY_HINTS[k];
    out.warn('unknown_key', `unknown ${what} key \`${k}\`${hint ? `: ${hint}` : ' (ignored)'}`, [...path, k]);
  }
}

// Validates one handler; returns undefined (after warning) when it must be dropped.
function normalizeHandler(
  event: HookEvent,
  raw: unknown,
  path: DocPath,
  opts: NormalizeOptions,
  out: DiagnosticCollector,
): Omit<NormalizedHandler, 'index'> | undefined {
  if (!isObject(raw)) {
    out.warn('invalid_handler', 'a handler must be an object; dropped', path);
    return undefined;
  }
  const type = raw['type'];
  if (type !== 'command' && type !== 'prompt' && type !== 'agent') {
    out.warn('invalid_handler', `handler \`type\` must be "command", "prompt" or "agent", got ${show(type)}; dropped`, [
      ...path,
      'type',
    ]);
    return undefined;
  }
  warnUnknownKeys(
    raw,
    type === 'command' ? HANDLER_KEYS : new Set([...HANDLER_KEYS, ...PROMPT_KEYS]),
    path,
    'handler',
    out,
  );
  const handler: HandlerConfig = { type };
  const command = raw['command'];
  if (command !== undefined) {
    if (typeof command === 'string' && command.trim() !== '') handler.command = command;
    else if (type === 'command') {
      out.warn('invalid_handler', '`command` must be a non-empty string; handler dropped', [...path, 'command']);
      return undefined;
    } else out.warn('invalid_value', '`command` must be a string; ignored', [...path, 'command']);
  } else if (type === 'command') {
    out.warn('invalid_handler', 'a command handler needs `command`; dropped', path);
    return undefined;
  }
  for (const key of ['commandWindows', 'command_windows'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (typeof v === 'string') handler.commandWindows ??= v;
    else out.warn('invalid_value', `\`${key}\` must be a string; ignored`, [...path, key]);
  }
  const timeout = raw['timeout'];
  if (timeout !== undefined) {
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 0) {
      out.warn(
        'invalid_timeout',
        `\`timeout\` must be a non-negative integer number of seconds, got ${show(timeout)}; handler dropped`,
        [...path, 'timeout'],
      );
      return undefined;
    }
    handler.timeout = timeout;
    if (event === 'SessionEnd' && timeout > SESSION_END_MAX_TIMEOUT_SEC) {
      out.warnOnce('session_end_timeout_clamped', sessionEndClamped(opts.file), [...path, 'timeout']);
    } else if (timeout > SUSPICIOUS_TIMEOUT_SEC) {
      out.warn(
        'timeout_suspicious',
        `timeout ${timeout} s is over an hour; timeout is in seconds (milliseconds are not converted)`,
        [...path, 'timeout'],
      );
    }
  }
  const asyncV = raw['async'];
  if (asyncV !== undefined) {
    if (typeof asyncV === 'boolean') handler.async = asyncV;
    else out.warn('invalid_value', '`async` must be a boolean; ignored', [...path, 'async']);
  }
  const status = raw['statusMessage'];
  if (status !== undefined) {
    if (typeof status === 'string') handler.statusMessage = status;
    else out.warn('invalid_value', '`statusMessage` must be a string; ignored', [...path, 'statusMessage']);
  }
  const limit = raw['additionalContextLimit'];
  if (limit !== undefined) {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) {
      out.warn('invalid_value', '`additionalContextLimit` must be a non-negative integer; ignored', [
        ...path,
        'additionalContextLimit',
      ]);
    } else {
      handler.additionalContextLimit = limit;
      if (!CONTEXT_EVENTS.has(event)) {
        out.warnOnce('additional_context_ignored', additionalContextIgnored(event, opts.file), [
          ...path,
          'additionalContextLimit',
        ]);
      }
    }
  }
  let unsupported: string | undefined;
  if (type !== 'command') {
    unsupported = `\`${type}\` handlers are parsed but not run`;
    out.warn('handler_type_unsupported', `${unsupported}; skipped`, [...path, 'type']);
  } else if (handler.async === true) {
    unsupported = 'async command hooks are not supported';
    out.warn('async_unsupported', `${unsupported}; skipped`, [...path, 'async']);
  }
  return unsupported ? { handler, unsupported } : { handler };
}

// Validates one matcher group; returns undefined (after warning) when the whole group is dropped.
function normalizeGroup(
  event: HookEvent,
  raw: unknown,
  index: number,
  path: DocPath,
  opts: NormalizeOptions,
  out: DiagnosticCollector,
): NormalizedGroup | undefined {
  if (!isObject(raw)) {
    out.warn('invalid_group', 'a matcher group must be an object; dropped', path);
    return undefined;
  }
  warnUnknownKeys(raw, GROUP_KEYS, path, 'matcher group', out);
  let matcher: string | undefined;
  const m = raw['matcher'];
  if (m === null) {
    out.warn('null_matcher', '`matcher: null` is treated as no matcher (matches everything)', [...path, 'matcher']);
  } else if (m !== undefined) {
    if (typeof m !== 'string') {
      out.warn('invalid_matcher', `matcher must be a string, got ${show(m)}; group dropped`, [...path, 'matcher']);
      return undefined;
    }
    matcher = m;
    if (!MATCHER_EVENTS.has(event)) {
      // The reference engine does not even compile a matcher its event ignores: an invalid one drops nothing.
      if (m !== '' && m !== '*') {
        out.warn(
          'matcher_ignored',
          `${event} ignores matchers; ${show(m)} is ignored and the group matches every ${event}`,
          [...path, 'matcher'],
        );
      }
    } else {
      const c = compileConfigMatcher(m);
      if (!c.ok) {
        out.warn('invalid_matcher', `invalid matcher ${show(m)}: ${c.error}; group dropped`, [...path, 'matcher']);
        return undefined;
      }
      if (matcherLooksLikeExpression(m)) {
        out.warn(
          'matcher_suspicious',
          `matcher ${JSON.stringify(m)} contains spaces or operators; matchers are regexes over names, so it will likely never match`,
          [...path, 'matcher'],
        );
      }
    }
  }
  const hooks = raw['hooks'];
  if (!Array.isArray(hooks)) {
    out.warn('invalid_group', 'a matcher group needs a `hooks` array; dropped', [...path, 'hooks']);
    return undefined;
  }
  const handlers: NormalizedHandler[] = [];
  hooks.forEach((h: unknown, hi) => {
    const n = normalizeHandler(event, h, [...path, 'hooks', hi], opts, out);
    if (n) handlers.push({ index: hi, ...n });
  });
  const group: NormalizedGroup = { index, handlers };
  if (matcher !== undefined) group.matcher = matcher;
  return group;
}

/** Normalizes a `hooks` table: unknown events warn, invalid groups/handlers are dropped with a located warning. */
export function normalizeHooksTable(raw: unknown, opts: NormalizeOptions, out: DiagnosticCollector): NormalizedEvent[] {
  if (!isObject(raw)) {
    out.warn(
      'invalid_hooks',
      '`hooks` must be an object mapping event names to matcher groups; ignored',
      opts.basePath,
    );
    return [];
  }
  const result: NormalizedEvent[] = [];
  for (const [name, groups] of Object.entries(raw)) {
    if (opts.ignoreKeys?.includes(name)) continue;
    const path = [...opts.basePath, name];
    if (!isHookEvent(name)) {
      out.warn('unknown_event', `unknown hook event \`${name}\`; its hooks are ignored`, path);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.warn('invalid_event', `\`${name}\` must be an array of matcher groups; ignored`, path);
      continue;
    }
    const normalized: NormalizedGroup[] = [];
    groups.forEach((g: unknown, gi) => {
      const n = normalizeGroup(name, g, gi, [...path, gi], opts, out);
      if (n) normalized.push(n);
    });
    result.push({ event: name, groups: normalized });
  }
  return result;
}
