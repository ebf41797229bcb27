// Pure rules of the inventory views (no DOM, no network): reading an endpoint's stored report defensively, the
// hook-inventory filters kept in the URL, and the sentence an admin acknowledges before a suppressing release.
import type {
  InventoryDocument,
  InventoryHook,
  InventorySkipped,
  InventoryWarning,
} from '@hookwarden/hook-core/browser';
import type { Schemas } from './api/client';

/** The layers and trust statuses of the filters: hook-core's inventory schema. */
export { INVENTORY_LAYERS, INVENTORY_TRUST } from '@hookwarden/hook-core/browser';

/** A field as read back defensively: a value a newer agent may send stays text. */
type Read<T> = T extends string ? string : T;
/** hook-core's fields `K` of `T`, read back defensively. */
type ReadBack<T, K extends keyof T> = { [P in K]: Read<T[P]> };

/** One inventoried hook as the agent reports it (hook-core's inventory schema, read back from the API). */
export type InventoryHookRow = ReadBack<
  InventoryHook,
  | 'user'
  | 'layer'
  | 'event'
  | 'matcher'
  | 'key'
  | 'hash'
  | 'trust'
  | 'plugin'
  | 'project'
  | 'fate'
  | 'skipReason'
  | 'program'
  | 'command'
>;

/** An endpoint's stored report as the console shows it (hook-core's inventory document, read back defensively). */
export type InventoryReport = ReadBack<
  InventoryDocument,
  'commandMode' | 'policyRevision' | 'hooksEnabled' | 'allowManagedHooksOnly'
> & {
  hooks: InventoryHookRow[];
  skippedSources: Array<ReadBack<InventorySkipped, keyof InventorySkipped>>;
  warnings: Array<ReadBack<InventoryWarning, keyof InventoryWarning>>;
};

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const records = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

// The stored report (typed `unknown` by the API document) as the console shows it; missing fields become empty.
export function readInventory(doc: unknown): InventoryReport {
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  return {
    commandMode: str(d.commandMode),
    policyRevision: typeof d.policyRevision === 'number' ? d.policyRevision : null,
    hooksEnabled: d.hooksEnabled !== false,
    allowManagedHooksOnly: d.allowManagedHooksOnly === true,
    hooks: records(d.hooks).map((h) => ({
      user: str(h.user),
      layer: str(h.layer),
      event: str(h.event),
      matcher: strOrNull(h.matcher),
      key: str(h.key),
      hash: str(h.hash),
      trust: str(h.trust),
      plugin: strOrNull(h.plugin),
      project: strOrNull(h.project),
      fate: str(h.fate),
      skipReason: strOrNull(h.skipReason),
      program: strOrNull(h.program),
      command: strOrNull(h.command),
    })),
    skippedSources: records(d.skippedSources).map((s) => ({
      user: str(s.user),
      layer: str(s.layer),
      path: str(s.path),
      reason: str(s.reason),
    })),
    warnings: records(d.warnings).map((w) => ({
      user: str(w.user),
      code: str(w.code),
      message: str(w.message),
      file: strOrNull(w.file),
    })),
  };
}

/** One entry of an inventory change: `{ added: [{key, hash, layer}], removed: [...] }`. */
export interface ChangedHook {
  key: string;
  hash: string;
  layer: string;
}

// The hooks a change added and removed (the API types the field loosely).
export function readChange(changes: unknown): { added: ChangedHook[]; removed: ChangedHook[] } {
  const c = (typeof changes === 'object' && changes !== null ? changes : {}) as Record<string, unknown>;
  const list = (v: unknown) => records(v).map((h) => ({ key: str(h.key), hash: str(h.hash), layer: str(h.layer) }));
  return { added: list(c.added), removed: list(c.removed) };
}

/** The filters of GET /v1/inventory/hooks, in form order. */
export const HOOK_FILTERS = ['groupId', 'layer', 'trust', 'program', 'commandContains', 'plugin', 'hash'] as const;
export type HookFilter = (typeof HOOK_FILTERS)[number];

// The hook filters set in the URL (trimmed, empty ones left out).
export function hookFiltersOf(query: URLSearchParams): Partial<Record<HookFilter, string>> {
  const out: Partial<Record<HookFilter, string>> = {};
  for (const k of HOOK_FILTERS) {
    const v = query.get(k)?.trim();
    if (v) out[k] = v;
  }
  return out;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

type Preview = Pick<Schemas['ReleasePreviewDto'], 'suppressed' | 'hooksTurnedOff' | 'impactUnknown' | 'endpoints'>;

// What a release will suppress, in words: "3 hooks (2 user, 1 plugin) on 1 endpoint". '' when nothing.
export function suppressedSummary(p: Preview): string {
  const s = p.suppressed;
  if (s.total === 0) return '';
  const parts = (['user', 'project', 'plugin', 'session'] as const).filter((l) => s[l] > 0).map((l) => `${s[l]} ${l}`);
  return `${plural(s.total, 'hook')} (${parts.join(', ')}) on ${plural(s.endpoints, 'endpoint')}`;
}

// The acknowledgement an admin ticks before a release that needs one, naming what it will suppress and turn off,
// and where its impact is unknown.
export function ackSentence(p: Preview): string {
  const what: string[] = [];
  const suppressed = suppressedSummary(p);
  if (suppressed) what.push(`suppresses ${suppressed}`);
  if (p.hooksTurnedOff.length > 0) {
    what.push(`turns hooks off on ${plural(p.hooksTurnedOff.length, 'endpoint')}`);
  }
  if (p.impactUnknown) {
    what.push(`has an unknown impact on ${plural(p.endpoints.unknown, 'endpoint')} without a recent inventory`);
  }
  return `I have reviewed the impact: this release ${what.length ? what.join(' and ') : 'changes hooks'}.`;
}
