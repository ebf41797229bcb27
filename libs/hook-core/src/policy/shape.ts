// The zod-free reading of a requirements document that PolicyDocumentSchema accepts without an issue: the engine
// reads its managed layer on every hook event, and loading zod costs more than the rest of the event. Anything this
// reading is not sure of (a wrong type, an unknown key, a refinement that fails) goes to the schema, which reports it.
import { HANDLER_KEY_ORDER, HOOKS_TABLE_KEYS } from './keys';
import type { PolicyDocument } from './schema';

type Obj = Record<string, unknown>;
/** Keys of the handler, group, features and document shapes, in the schema's order (zod's output order). */
const HANDLER_TYPES: ReadonlySet<unknown> = new Set(['command', 'prompt', 'agent']);
const HANDLER_STRINGS: ReadonlySet<string> = new Set([
  'command',
  'command_windows',
  'commandWindows',
  'statusMessage',
  'prompt',
]);
const HANDLER_NUMBERS: ReadonlySet<string> = new Set(['timeout', 'additionalContextLimit']);
const FEATURE_KEYS: readonly string[] = ['hooks', 'zerocode_hooks'];
const DOCUMENT_KEYS: readonly string[] = ['allow_managed_hooks_only', 'features', 'hooks'];

/** Marker: the fast reading cannot vouch for this value (the schema decides). */
const UNSURE = Symbol('unsure');

// Is this a plain object whose keys can be copied as they are (no `__proto__` own key)?
function plain(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && !Object.prototype.hasOwnProperty.call(v, '__proto__');
}

// A copy with `shape` keys first (in that order, when present), then the other keys in input order: as zod builds it.
function ordered(
  v: Obj,
  shape: readonly string[],
  each: (key: string, value: unknown) => unknown,
): Obj | typeof UNSURE {
  const out: Obj = {};
  for (const k of shape) {
    if (!(k in v)) continue;
    const r = each(k, v[k]);
    if (r === UNSURE) return UNSURE;
    out[k] = r;
  }
  for (const k of Object.keys(v)) {
    if (shape.includes(k)) continue;
    const r = each(k, v[k]);
    if (r === UNSURE) return UNSURE;
    out[k] = r;
  }
  return out;
}

// One `[[hooks.<Event>.hooks]]` handler (the strict handler schema and its refinements).
function handler(v: unknown): Obj | typeof UNSURE {
  if (!plain(v) || !HANDLER_TYPES.has(v['type'])) return UNSURE;
  if (v['type'] === 'command' && (typeof v['command'] !== 'string' || v['command'].trim() === '')) return UNSURE;
  if ('command_windows' in v && 'commandWindows' in v) return UNSURE;
  return ordered(v, HANDLER_KEY_ORDER, (k, x) => {
    if (k === 'type') return x;
    if (HANDLER_STRINGS.has(k)) return typeof x === 'string' ? x : UNSURE;
    if (HANDLER_NUMBERS.has(k)) return typeof x === 'number' && Number.isFinite(x) ? x : UNSURE;
    if (k === 'async') return typeof x === 'boolean' ? x : UNSURE;
    return UNSURE; // an unknown handler key
  });
}

// One `[[hooks.<Event>]]` matcher group.
function group(v: unknown): Obj | typeof UNSURE {
  if (!plain(v) || !Array.isArray(v['hooks'])) return UNSURE;
  return ordered(v, ['matcher', 'hooks'], (k, x) => {
    if (k === 'matcher') return typeof x === 'string' ? x : UNSURE;
    if (k !== 'hooks') return UNSURE;
    const handlers = (x as unknown[]).map(handler);
    return handlers.includes(UNSURE) ? UNSURE : handlers;
  });
}

// The `[hooks]` table: the managed directories, and a list of groups under every other key.
function hooksTable(v: unknown): Obj | typeof UNSURE {
  if (!plain(v)) return UNSURE;
  return ordered(v, HOOKS_TABLE_KEYS, (k, x) => {
    if (HOOKS_TABLE_KEYS.includes(k)) return typeof x === 'string' ? x : UNSURE;
    if (!Array.isArray(x)) return UNSURE;
    const groups = x.map(group);
    return groups.includes(UNSURE) ? UNSURE : groups;
  });
}

/**
 * What `PolicyDocumentSchema.safeParse(value)` returns as `data` when it succeeds, built the same way (fresh objects
 * and arrays for the shapes, keys in the schema's order, carried values as they are), or undefined when this reading
 * is not sure the schema would accept the value.
 */
export function readPolicyShape(value: unknown): PolicyDocument | undefined {
  if (!plain(value)) return undefined;
  const out = ordered(value, DOCUMENT_KEYS, (k, x) => {
    if (k === 'allow_managed_hooks_only') return typeof x === 'boolean' ? x : UNSURE;
    if (k === 'hooks') return hooksTable(x);
    if (k !== 'features') return x;
    if (!plain(x)) return UNSURE;
    return ordered(x, FEATURE_KEYS, (f, y) => (FEATURE_KEYS.includes(f) && typeof y !== 'boolean' ? UNSURE : y));
  });
  return out === UNSURE ? undefined : out;
}
