// Pure rules of the inventory views (no DOM, no network): reading an endpoint's stored report defensively, the
// hook-inventory filters kept in the URL, and the sentence an admin acknowledges before a suppressing release.
import type { Schemas } from './api/client';

export const INVENTORY_LAYERS = ['system', 'user', 'project', 'session', 'plugin', 'managed'] as const;
export const INVENTORY_TRUST = ['managed', 'trusted', 'modified', 'untrusted', 'disabled'] as const;

/** One inventoried hook as the agent reports it (hook-core's inventory schema, read back from the API). */
export interface InventoryHookRow {
  user: string;
  layer: string;
  event: string;
  matcher: string | null;
  key: string;
  hash: string;
  trust: string;
  plugin: string | null;
  project: string | null;
  fate: string;
  skipReason: string | null;
  program: string | null;
  command: string | null;
}

export interface InventoryReport {
  commandMode: string;
  policyRevision: number | null;
  hooksEnabled: boolean;
  allowManagedHooksOnly: boolean;
  hooks: InventoryHookRow[];
  skippedSources: Array<{ user: string; layer: string; path: string; reason: string }>;
  warnings: Array<{ user: string; code: string; message: string; file: string | null }>;
}

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
