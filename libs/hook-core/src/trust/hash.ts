// Trust identity of a hook: its key and its `sha256:` definition hash (reproduces the reference engine's vectors).
import type { HandlerConfig, HookEvent } from '../types';
import {
  CONTEXT_EVENTS,
  DEFAULT_ADDITIONAL_CONTEXT_LIMIT,
  eventSnake,
  MATCHER_EVENTS,
  normalizeTimeout,
} from '../config/events';
import { sha256Hex } from '../record/canonical';

/** Platform for which the effective command is hashed (`win32` hashes `commandWindows` when set). */
export type HashPlatform = NodeJS.Platform;

/**
 * The canonical object hashed for a hook definition:
 * `{"event_name": <snake>, "hooks": [<handler>], "matcher"?: <string>}` where the handler is
 * `{type, command, timeout (normalized), async (default false), statusMessage?, additionalContextLimit?}`;
 * `matcher` only for events that use one (absent ≠ `""`), `additionalContextLimit` only when it differs
 * from the default 2500 and the event can emit additionalContext.
 */
export function hookIdentity(
  event: HookEvent,
  matcher: string | undefined,
  handler: HandlerConfig,
  platform: HashPlatform = process.platform,
): Record<string, unknown> {
  const command =
    platform === 'win32' && handler.commandWindows !== undefined ? handler.commandWindows : handler.command;
  const h: Record<string, unknown> = {
    type: handler.type,
    command,
    timeout: normalizeTimeout(event, handler.timeout),
    async: handler.async ?? false,
  };
  if (handler.statusMessage !== undefined) h['statusMessage'] = handler.statusMessage;
  const limit = handler.additionalContextLimit;
  if (limit !== undefined && limit !== DEFAULT_ADDITIONAL_CONTEXT_LIMIT && CONTEXT_EVENTS.has(event)) {
    h['additionalContextLimit'] = limit;
  }
  const identity: Record<string, unknown> = { event_name: eventSnake(event), hooks: [h] };
  if (matcher !== undefined && MATCHER_EVENTS.has(event)) identity['matcher'] = matcher;
  return identity;
}

// Canonical JSON of a hook identity written directly (keys in sorted order; equals canonicalJson(hookIdentity(...))).
function identityJson(
  event: HookEvent,
  matcher: string | undefined,
  handler: HandlerConfig,
  platform: HashPlatform,
): string {
  const command =
    platform === 'win32' && handler.commandWindows !== undefined ? handler.commandWindows : handler.command;
  const limit = handler.additionalContextLimit;
  let h = '{';
  if (limit !== undefined && limit !== DEFAULT_ADDITIONAL_CONTEXT_LIMIT && CONTEXT_EVENTS.has(event)) {
    h += `"additionalContextLimit":${JSON.stringify(limit)},`;
  }
  h += `"async":${handler.async === true ? 'true' : 'false'}`;
  if (command !== undefined) h += `,"command":${JSON.stringify(command)}`;
  if (handler.statusMessage !== undefined) h += `,"statusMessage":${JSON.stringify(handler.statusMessage)}`;
  h += `,"timeout":${normalizeTimeout(event, handler.timeout)},"type":${JSON.stringify(handler.type)}}`;
  let out = `{"event_name":${JSON.stringify(eventSnake(event))},"hooks":[${h}]`;
  if (matcher !== undefined && MATCHER_EVENTS.has(event)) out += `,"matcher":${JSON.stringify(matcher)}`;
  return `${out}}`;
}

// `sha256:<hex>` definition hash of a hook (same for JSON and TOML definitions of the same hook).
export function hookHash(
  event: HookEvent,
  matcher: string | undefined,
  handler: HandlerConfig,
  platform: HashPlatform = process.platform,
): string {
  const text = identityJson(event, matcher, handler, platform);
  return `sha256:${sha256Hex(text)}`;
}

// Trust key suffix `<event_snake>:<group>:<handler>`.
export function hookKeySuffix(event: HookEvent, groupIndex: number, handlerIndex: number): string {
  return `${eventSnake(event)}:${groupIndex}:${handlerIndex}`;
}

// Full trust key `<source>:<event_snake>:<group>:<handler>`.
export function hookKey(source: string, event: HookEvent, groupIndex: number, handlerIndex: number): string {
  return `${source}:${hookKeySuffix(event, groupIndex, handlerIndex)}`;
}
