// Reading requirements.toml as the engine does: what fails the whole managed layer closed, what breaks only one hook
// (listed and recorded as failed, never run), what is clamped with a warning. The agent applies nothing it refuses.
import type { ConfigDiagnostic, HandlerConfig, HookEvent } from '../types';
import { lintPolicy } from '../policy/lint';
import { isPlainObject, parsePolicyToml } from '../policy/parse';
import { HOOKS_TABLE_KEYS } from '../policy/keys';
import type { PolicyDocument } from '../policy/schema';
import { DiagnosticCollector } from './diagnostics';
import { isHookEvent } from './events';
import { normalizeHooksTable, type NormalizedEvent, type NormalizedGroup, type NormalizedHandler } from './normalize';
import { parseTomlLocated } from './toml-located';

/** A managed handler that cannot be read as written. */
export interface BrokenManagedHook {
  event: HookEvent;
  groupIndex: number;
  handlerIndex: number;
  /** What is wrong and where (`timeout: expected number … at $.hooks.PreToolUse[0].hooks[0].timeout`). */
  error: string;
}

/** The managed layer as the engine reads it. */
export type ManagedReading =
  | { ok: false; failure: string; diagnostics: ConfigDiagnostic[] }
  | {
      ok: true;
      policy: PolicyDocument;
      /** Every hook as written, the unreadable ones included (`broken` set on their handlers). */
      events: NormalizedEvent[];
      broken: BrokenManagedHook[];
      diagnostics: ConfigDiagnostic[];
    };

/** Where a diagnostic sits inside one hook: event, group and (unless the whole group is unreadable) handler. */
interface HookSite {
  event: HookEvent;
  group: number;
  handler: number | null;
}

const SITE = /^\$\.hooks\.([A-Za-z]+)\[(\d+)\](?:\.hooks\[(\d+)\])?/;
const HANDLER_TYPES: ReadonlySet<string> = new Set(['command', 'prompt', 'agent']);
/** Most problems named for one hook. */
const MAX_NAMED = 3;

// The hook a diagnostic is about, or undefined when it concerns the whole document (then the layer fails closed).
function hookSite(d: ConfigDiagnostic): HookSite | undefined {
  const m = d.path !== undefined ? SITE.exec(d.path) : null;
  if (!m || !isHookEvent(m[1]!)) return undefined;
  return { event: m[1], group: Number(m[2]), handler: m[3] !== undefined ? Number(m[3]) : null };
}

// `message at $.path` for one diagnostic.
function describe(d: ConfigDiagnostic): string {
  return `${d.message}${d.path ? ` at ${d.path}` : ''}`;
}

// Whatever can be read of an unreadable handler, for listing it (type `command` unless it names a known type).
function looseHandler(raw: unknown): HandlerConfig {
  const h = isPlainObject(raw) ? raw : {};
  const type = typeof h['type'] === 'string' && HANDLER_TYPES.has(h['type']) ? h['type'] : 'command';
  const out: HandlerConfig = { type: type as HandlerConfig['type'] };
  if (typeof h['command'] === 'string') out.command = h['command'];
  const win = h['command_windows'] ?? h['commandWindows'];
  if (typeof win === 'string') out.commandWindows = win;
  if (typeof h['timeout'] === 'number' && Number.isFinite(h['timeout'])) out.timeout = h['timeout'];
  if (typeof h['statusMessage'] === 'string') out.statusMessage = h['statusMessage'];
  return out;
}

// Inserts `item` into `list` ordered by `index` (or returns the entry already there).
function upsert<T extends { index: number }>(list: T[], index: number, make: () => T): T {
  const found = list.find((x) => x.index === index);
  if (found) return found;
  const item = make();
  const at = list.findIndex((x) => x.index > index);
  if (at < 0) list.push(item);
  else list.splice(at, 0, item);
  return item;
}

// Marks (or adds) every unreadable handler in the normalized events.
function markBroken(
  events: NormalizedEvent[],
  hooks: Record<string, unknown>,
  problems: Map<string, { site: HookSite; messages: string[] }>,
): BrokenManagedHook[] {
  const broken: BrokenManagedHook[] = [];
  const groupLevel = [...problems.values()].filter((p) => p.site.handler === null);
  const handlerLevel = [...problems.values()].filter((p) => p.site.handler !== null);
  for (const { site, messages } of [...groupLevel, ...handlerLevel]) {
    const ev = events.find((e) => e.event === site.event) ?? { event: site.event, groups: [] };
    if (!events.includes(ev)) events.push(ev);
    const rawGroups: unknown = hooks[site.event];
    const candidate: unknown = Array.isArray(rawGroups) ? rawGroups[site.group] : undefined;
    const rawGroup: Record<string, unknown> = isPlainObject(candidate) ? candidate : {};
    const rawHandlers: unknown[] = Array.isArray(rawGroup['hooks']) ? (rawGroup['hooks'] as unknown[]) : [];
    const group = upsert<NormalizedGroup>(ev.groups, site.group, () => {
      const g: NormalizedGroup = { index: site.group, handlers: [] };
      if (typeof rawGroup['matcher'] === 'string') g.matcher = rawGroup['matcher'];
      return g;
    });
    const indices =
      site.handler !== null ? [site.handler] : rawHandlers.length > 0 ? rawHandlers.map((_, i) => i) : [0];
    const shown = messages.slice(0, MAX_NAMED).join('; ');
    const error = messages.length > MAX_NAMED ? `${shown} (and ${messages.length - MAX_NAMED} more)` : shown;
    for (const hi of indices) {
      const h = upsert<NormalizedHandler>(group.handlers, hi, () => ({
        index: hi,
        handler: looseHandler(rawHandlers[hi]),
      }));
      if (h.broken !== undefined) continue; // the group's problem is named first
      h.broken = error;
      broken.push({ event: site.event, groupIndex: site.group, handlerIndex: hi, error });
    }
  }
  return broken;
}

/**
 * Reads a requirements.toml text the way the engine loads the managed layer. The whole layer fails closed (no hook
 * runs) when the file is not TOML or a document-level value is wrong (unknown event, `allow_managed_hooks_only`,
 * `[features]`, `managed_dir`, an event that is not a list). A problem inside one hook (invalid field type, unknown
 * key, unparseable matcher, missing command) breaks only that hook (or its group). A whole-number timeout above the
 * limit is clamped with a warning.
 */
export function readManagedRequirements(text: string, file: string): ManagedReading {
  const parsed = parsePolicyToml(text, file);
  const diagnostics: ConfigDiagnostic[] = [...parsed.diagnostics];
  const fail = (d: ConfigDiagnostic | undefined): ManagedReading => ({
    ok: false,
    failure: `${file} is invalid: ${d ? describe(d) : 'validation failed'}`,
    diagnostics,
  });
  let doc: Record<string, unknown>;
  if (parsed.ok) doc = parsed.policy;
  else {
    const raw = parseTomlLocated(text);
    if (!raw.ok) return fail(parsed.diagnostics.find((d) => d.severity === 'error'));
    doc = raw.value;
  }
  const schemaErrors = parsed.diagnostics.filter((d) => d.severity === 'error');
  const docError = schemaErrors.find((d) => hookSite(d) === undefined);
  if (docError) return fail(docError);
  // The document-level values passed the schema, so the document can be linted as a policy.
  const policy = doc as PolicyDocument;
  const lint = lintPolicy(policy, undefined, { sourceText: text, file, engine: true });
  diagnostics.push(...lint.errors, ...lint.warnings.filter((w) => w.code !== 'not_interpreted'));
  const lintDocError = lint.errors.find((d) => hookSite(d) === undefined);
  if (lintDocError) return fail(lintDocError);

  const problems = new Map<string, { site: HookSite; messages: string[] }>();
  for (const d of [...schemaErrors, ...lint.errors]) {
    const site = hookSite(d)!;
    const key = `${site.event}\u0000${site.group}\u0000${site.handler ?? '*'}`;
    const entry = problems.get(key) ?? { site, messages: [] };
    if (!entry.messages.includes(describe(d))) entry.messages.push(describe(d));
    problems.set(key, entry);
  }
  const hooks = isPlainObject(doc['hooks']) ? doc['hooks'] : {};
  const events = normalizeHooksTable(
    hooks,
    { file, basePath: ['hooks'], ignoreKeys: HOOKS_TABLE_KEYS },
    new DiagnosticCollector(file),
  );
  const order = Object.keys(hooks);
  const broken = markBroken(events, hooks, problems).sort(
    (a, b) =>
      order.indexOf(a.event) - order.indexOf(b.event) || a.groupIndex - b.groupIndex || a.handlerIndex - b.handlerIndex,
  );
  return { ok: true, policy, events, broken, diagnostics };
}

/**
 * Why this engine would not run a requirements.toml as written, or undefined when it would: the whole layer fails
 * closed or a managed hook cannot be read. The agent refuses such a bundle before its switch (the old layer stays).
 */
export function managedLayerRefusal(text: string, file: string = 'requirements.toml'): string | undefined {
  const r = readManagedRequirements(text, file);
  if (!r.ok) return r.failure;
  const first = r.broken[0];
  if (!first) return undefined;
  const n = r.broken.length;
  return `${file}: ${n} managed hook${n === 1 ? '' : 's'} cannot be read by this engine: ${first.event}[${first.groupIndex}].hooks[${first.handlerIndex}]: ${first.error}`;
}
