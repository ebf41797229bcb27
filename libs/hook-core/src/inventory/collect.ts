// Collects an endpoint's hook inventory with the engine's own discovery: every hook of every configured user home
// (user layer, installed plugins, trusted projects), with what the managed policy in force does to it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { discoverHooks } from '../config/discover';
import { canonicalJson } from '../trust/canonical-json';
import { readTrustState } from '../trust/state';
import { compileRedactions, REDACT_MARGIN_BYTES, redactText } from '../record/capture';
import type { LinearRegex } from '../match/regex';
import { sha256Hex } from '../record/canonical';
import type { DiscoveredHook, Discovery } from '../types';
import type { InventoryCommandMode } from './vocabulary';
import {
  type InventoryDocument,
  type InventoryHook,
  MAX_INVENTORY_HOOKS,
  MAX_INVENTORY_SKIPPED,
  MAX_INVENTORY_WARNINGS,
} from './schema';

/** One person's ZeroTwo setup on the machine. */
export interface InventoryHome {
  /** OS user name (for the report). */
  user: string;
  /** The OS home directory. */
  homeDir: string;
  /** ZeroTwo home (default `<homeDir>/.zerotwo`). */
  zerotwoHome?: string;
}

export interface CollectOptions {
  homes: InventoryHome[];
  /** The managed requirements.toml in force (null: none). */
  requirementsPath: string | null;
  systemDir?: string;
  commandMode: InventoryCommandMode;
  redact: { redactPatterns: string[]; useDefaultRedact: boolean };
  policyRevision: number | null;
  /** Most trusted projects inventoried per home. */
  maxProjectsPerHome?: number;
  now?: Date;
}

/** Installed plugins live in `<zerotwo home>/plugins/<name>/` (the `data` folder holds their writable data). */
function installedPlugins(zerotwoHome: string): string[] {
  const dir = path.join(zerotwoHome, 'plugins');
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'data')
      .map((d) => path.join(dir, d.name))
      .sort()
      .slice(0, 200);
  } catch {
    return [];
  }
}

// The trusted project directories recorded in a user's config.toml (bounded, existing directories only).
function trustedProjects(zerotwoHome: string, max: number): string[] {
  const file = path.join(zerotwoHome, 'config.toml');
  let doc: Record<string, unknown> | undefined;
  try {
    if (!existsSync(file) || statSync(file).size > 1024 * 1024) return [];
    doc = parseToml(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const [dir, level] of readTrustState(doc).projects) {
    if (level !== 'trusted') continue;
    try {
      if (statSync(dir).isDirectory()) out.push(dir);
    } catch {
      continue;
    }
    if (out.length >= max) break;
  }
  return out.sort();
}

// The first word of a command (the program), without its directory only when it is a path to a script.
export function programOf(command: string): string | null {
  const trimmed = command.trim();
  if (trimmed === '') return null;
  const m = /^(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(trimmed);
  const word = m?.[1] ?? m?.[2] ?? m?.[3] ?? '';
  return word.slice(0, 512) || null;
}

/** Longest command text an inventory entry reports (mode `verbatim`). */
const MAX_COMMAND_CHARS = 8192;

// The command fields of an inventoried hook under the privacy mode.
function commandFields(
  command: string,
  mode: InventoryCommandMode,
  patterns: readonly LinearRegex[],
): Pick<InventoryHook, 'commandHash' | 'program' | 'command'> {
  if (mode === 'none') return { commandHash: null, program: null, command: null };
  const commandHash = `sha256:${sha256Hex(command)}`;
  if (mode === 'hash') return { commandHash, program: null, command: null };
  const program = programOf(command);
  if (mode === 'program') return { commandHash, program: program && redactText(program, patterns), command: null };
  return {
    commandHash,
    program: program && redactText(program, patterns),
    // Bounded before it is redacted (linear time in the bound), then cut to the field's size.
    command: redactText(command.slice(0, MAX_COMMAND_CHARS + REDACT_MARGIN_BYTES), patterns).slice(
      0,
      MAX_COMMAND_CHARS,
    ),
  };
}

// One hook's inventory entry (its fate under the policy in force comes from the governed discovery).
function entryOf(
  user: string,
  hook: DiscoveredHook,
  governed: DiscoveredHook | undefined,
  suppressedReason: string | null,
  project: string | null,
  mode: InventoryCommandMode,
  patterns: readonly LinearRegex[],
): InventoryHook {
  const source = governed ?? hook;
  const fate = governed ? (governed.runnable ? 'run' : 'skipped') : 'skipped';
  const skipReason = governed ? (governed.runnable ? null : (governed.skipReason ?? null)) : suppressedReason;
  return {
    user,
    layer: hook.layer,
    event: hook.event,
    matcher: hook.matcher ?? null,
    key: hook.key.slice(0, 4096),
    hash: hook.hash,
    trust: source.trust,
    managed: hook.managed,
    plugin: hook.plugin?.name ?? null,
    project,
    fate,
    skipReason: skipReason?.slice(0, 500) ?? null,
    ...commandFields(hook.handler.command ?? '', mode, patterns),
  };
}

// Discovery of one home and project: with the managed policy (what runs), and without it (what is there).
function discoverPair(
  home: InventoryHome,
  zerotwoHome: string,
  projectDir: string | undefined,
  options: CollectOptions,
  plugins: string[],
): { governed: Discovery; all: Discovery } {
  const base = {
    home: zerotwoHome,
    homeDir: home.homeDir,
    plugins,
    ...(options.systemDir !== undefined ? { systemDir: options.systemDir } : {}),
    ...(projectDir !== undefined ? { projectDir } : {}),
  };
  return {
    governed: discoverHooks({ ...base, requirementsPath: options.requirementsPath }),
    all: discoverHooks({ ...base, requirementsPath: null }),
  };
}

// Collects the inventory of every configured home; never throws for a user's broken files (they become warnings).
export function collectInventory(options: CollectOptions): InventoryDocument {
  const { patterns, invalid } = compileRedactions(options.redact);
  const hooks: InventoryHook[] = [];
  const seen = new Set<string>();
  const skippedSources: InventoryDocument['skippedSources'] = [];
  const warnings: InventoryDocument['warnings'] = [];
  // A redaction pattern that does not compile: no command text it was meant to cover is reported (hashes only).
  let commandMode = options.commandMode;
  if (invalid.length > 0 && (commandMode === 'verbatim' || commandMode === 'program')) {
    commandMode = 'hash';
    for (const bad of invalid.slice(0, 10))
      warnings.push({
        user: '',
        code: 'invalid_redaction_pattern',
        message:
          `invalid redaction pattern ${JSON.stringify(bad.pattern.slice(0, 500))}: ${bad.error}; commands are reported as hashes only`.slice(
            0,
            2000,
          ),
        file: null,
      });
  }
  const users: InventoryDocument['users'] = [];
  let hooksEnabled = true;
  let allowManagedHooksOnly = false;
  let managedDone = false;
  const push = (entry: InventoryHook): void => {
    const id = `${entry.user}\u0000${entry.key}`;
    if (seen.has(id) || hooks.length >= MAX_INVENTORY_HOOKS) return;
    seen.add(id);
    hooks.push(entry);
  };
  for (const home of options.homes) {
    const zerotwoHome = home.zerotwoHome ?? path.join(home.homeDir, '.zerotwo');
    const plugins = installedPlugins(zerotwoHome);
    const projects = trustedProjects(zerotwoHome, options.maxProjectsPerHome ?? 100);
    users.push({ user: home.user.slice(0, 256), home: zerotwoHome.slice(0, 4096), projects: projects.length });
    for (const projectDir of [undefined, ...projects]) {
      let pair: { governed: Discovery; all: Discovery };
      try {
        pair = discoverPair(home, zerotwoHome, projectDir, options, plugins);
      } catch (err) {
        warnings.push({
          user: home.user,
          code: 'discovery_failed',
          message: String((err as Error).message).slice(0, 2000),
          file: zerotwoHome,
        });
        continue;
      }
      const { governed, all } = pair;
      hooksEnabled = governed.hooksEnabled;
      allowManagedHooksOnly = governed.managed?.allowManagedHooksOnly ?? false;
      const byKey = new Map(governed.hooks.map((h) => [h.key, h]));
      const managedOnlyReason = allowManagedHooksOnly ? 'allow_managed_hooks_only' : null;
      for (const hook of all.hooks) {
        if (hook.managed && hook.layer !== 'system') continue;
        if (projectDir !== undefined && hook.layer !== 'project') continue;
        const user = hook.layer === 'system' ? '' : home.user;
        push(
          entryOf(
            user,
            hook,
            byKey.get(hook.key),
            managedOnlyReason,
            hook.layer === 'project' ? (projectDir ?? null) : null,
            commandMode,
            patterns,
          ),
        );
      }
      if (!managedDone) {
        for (const hook of governed.hooks.filter((h) => h.layer === 'managed')) {
          push(entryOf('', hook, hook, null, null, commandMode, patterns));
        }
        managedDone = true;
      }
      for (const s of governed.skipped) {
        if (skippedSources.length >= MAX_INVENTORY_SKIPPED) break;
        skippedSources.push({
          user: home.user,
          layer: s.layer,
          path: s.path.slice(0, 4096),
          reason: s.reason.slice(0, 1000),
        });
      }
      for (const d of governed.diagnostics) {
        if (warnings.length >= MAX_INVENTORY_WARNINGS) break;
        warnings.push({
          user: home.user,
          code: d.code.slice(0, 100),
          message: d.message.slice(0, 2000),
          file: d.file?.slice(0, 4096) ?? null,
        });
      }
    }
  }
  const body = {
    schema: 'hookwarden.inventory/1' as const,
    commandMode,
    policyRevision: options.policyRevision,
    hooksEnabled,
    allowManagedHooksOnly,
    users,
    hooks,
    skippedSources: dedupe(skippedSources),
    warnings: dedupe(warnings),
  };
  return { ...body, collectedAt: (options.now ?? new Date()).toISOString(), digest: inventoryDigest(body) };
}

// The change-detection digest of an inventory (everything but its collection time).
export function inventoryDigest(doc: Omit<InventoryDocument, 'collectedAt' | 'digest'>): string {
  return `sha256:${sha256Hex(canonicalJson(doc))}`;
}

// Drops repeated entries (the same skipped source seen for every project of a home).
function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = JSON.stringify(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
