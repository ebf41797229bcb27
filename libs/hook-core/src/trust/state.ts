// Reading trust decisions from the user config.toml: `[hooks.state."<key>"]` and `[projects."<dir>"]` tables.
import type { TrustStatus } from '../types';

/** Persisted decision for one hook key. */
export interface HookStateEntry {
  trustedHash?: string;
  enabled?: boolean;
}

export interface TrustState {
  hooks: Map<string, HookStateEntry>;
  /** Project directory → trust_level (`trusted` / `untrusted`). */
  projects: Map<string, string>;
}

// Narrows to a plain table.
function table(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

// Extracts trust state from a parsed user config.toml (missing or odd entries are ignored).
export function readTrustState(doc: Record<string, unknown> | undefined): TrustState {
  const state: TrustState = { hooks: new Map(), projects: new Map() };
  const entries = table(table(doc?.['hooks'])?.['state']);
  for (const [key, raw] of Object.entries(entries ?? {})) {
    const t = table(raw);
    if (!t) continue;
    const e: HookStateEntry = {};
    if (typeof t['trusted_hash'] === 'string') e.trustedHash = t['trusted_hash'];
    if (typeof t['enabled'] === 'boolean') e.enabled = t['enabled'];
    state.hooks.set(key, e);
  }
  for (const [dir, raw] of Object.entries(table(doc?.['projects']) ?? {})) {
    const level = table(raw)?.['trust_level'];
    if (typeof level === 'string') state.projects.set(dir, level);
  }
  return state;
}

// Trust status of a non-managed hook given its persisted entry and current hash.
export function trustStatusOf(entry: HookStateEntry | undefined, hash: string): TrustStatus {
  if (entry?.enabled === false) return 'disabled';
  if (entry?.trustedHash === undefined) return 'untrusted';
  return entry.trustedHash === hash ? 'trusted' : 'modified';
}

// Whether a project directory is trusted: the nearest recorded ancestor-or-self decides.
export function isProjectTrusted(
  projects: Map<string, string>,
  projectDir: string,
  parent: (p: string) => string,
): { trusted: boolean; decidedBy?: string } {
  let dir = projectDir;
  for (;;) {
    const level = projects.get(dir) ?? projects.get(dir.replace(/[\\/]+$/, ''));
    if (level !== undefined) return { trusted: level === 'trusted', decidedBy: dir };
    const up = parent(dir);
    if (up === dir) return { trusted: false };
    dir = up;
  }
}
