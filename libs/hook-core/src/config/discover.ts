// discoverHooks: every layer (managed, system, user, project, session, plugins) → hooks with keys, hashes and trust.
import type { ConfigDiagnostic, DiscoveredHook, Discovery, LayerKind, SkippedSource } from '../types';
import type { PolicyDocument } from '../policy/schema';
import { hookHash, hookKey } from '../trust/hash';
import { sha256Hex } from '../record/canonical';
import { isProjectTrusted, readTrustState, trustStatusOf, type TrustState } from '../trust/state';
import { DiagnosticCollector } from './diagnostics';
import { managedLayerProblem } from './layer-gate';
import { nodeFs, pathApiFor, resolveLocations, findGitRoot, type DiscoveryFs, type PathApi } from './env';
import { EVENT_SPEC } from '../event-spec';
import { appliedTimeoutSec, normalizeTimeout } from './events';
import { readManagedRequirements } from './managed';
import { loadConfigTomlText, loadHooksJsonText, type FeatureSetting, type LoadedFile } from './load-files';
import { normalizeHooksTable } from './normalize';
import { resolvePlugin, type PluginSpec } from './plugins';

export interface DiscoverOptions {
  /** ZeroTwo home = user layer directory (default `$ZEROTWO_HOME`, else `~/.zerotwo`). */
  home?: string;
  /** The OS user's home directory (default `$HOME` / `%USERPROFILE%`). */
  homeDir?: string;
  /** Session working directory: the project is the git root above it. */
  cwd?: string;
  /** Project root given directly (its `.zerotwo/` is the project layer); overrides the git-root search. */
  projectDir?: string;
  /** System layer directory (default `/etc/zerotwo`, `%ProgramData%\ZeroTwo` on Windows). */
  systemDir?: string;
  /** requirements.toml path (default `<system dir>/requirements.toml`); `null` disables the managed layer. */
  requirementsPath?: string | null;
  /** Enabled plugins (root directories or specs). */
  plugins?: Array<string | PluginSpec>;
  /** Hooks passed for this session only: a `hooks` table (event → groups). */
  sessionHooks?: unknown;
  /** Source name used in session hook keys (default `<session>`). */
  sessionSource?: string;
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
  fs?: DiscoveryFs;
  /** Run enabled hooks without persisted trust (status is kept; `runnable` says they will run). */
  bypassTrust?: boolean;
}

/** A loaded source before hooks are built from it. */
interface Source {
  layer: LayerKind;
  keySource: string;
  loaded: LoadedFile;
  managed: boolean;
  plugin?: DiscoveredHook['plugin'];
}

// Reads and loads one layer file, reporting read failures as diagnostics.
function readLayerFile(
  fs: DiscoveryFs,
  path: string,
  kind: 'hooks.json' | 'config.toml',
  diags: ConfigDiagnostic[],
): LoadedFile | undefined {
  let text: string | undefined;
  try {
    text = fs.readFile(path);
  } catch (e) {
    diags.push({
      severity: 'warning',
      code: 'read_error',
      message: `cannot read ${path}: ${(e as Error).message}; file ignored`,
      file: path,
    });
    return undefined;
  }
  if (text === undefined) return undefined;
  return kind === 'hooks.json' ? loadHooksJsonText(text, path) : loadConfigTomlText(text, path);
}

/** Both files of one layer directory. */
interface LayerFiles {
  dir: string;
  files: LoadedFile[];
  config?: LoadedFile;
}

// Loads a layer directory: hooks.json first, then config.toml; warns once when both define hooks.
function loadLayerDir(fs: DiscoveryFs, p: PathApi, dir: string, diags: ConfigDiagnostic[]): LayerFiles {
  const json = readLayerFile(fs, p.join(dir, 'hooks.json'), 'hooks.json', diags);
  const toml = readLayerFile(fs, p.join(dir, 'config.toml'), 'config.toml', diags);
  const files = [json, toml].filter((f): f is LoadedFile => f !== undefined);
  for (const f of files) diags.push(...f.diagnostics);
  if (json?.definesHooks && toml?.definesHooks) {
    diags.push({
      severity: 'warning',
      code: 'both_representations',
      message: `${dir} has hooks in both hooks.json and config.toml; both are loaded (hooks.json first). Prefer one representation per layer`,
      file: toml.file,
    });
  }
  return toml ? { dir, files, config: toml } : { dir, files };
}

/** The managed layer read from requirements.toml. */
interface ManagedLayer {
  path: string;
  policy: PolicyDocument;
  text: string;
  source?: Source;
}

// Loads requirements.toml (hook-core's one reading of it); returns an error message when it must fail closed.
function loadManaged(
  fs: DiscoveryFs,
  path: string,
  diags: ConfigDiagnostic[],
): ManagedLayer | { failure: string } | undefined {
  const gated = fs === nodeFs; // the agent's layer gate lives on the real disk
  let text: string | undefined;
  try {
    text = fs.readFile(path);
  } catch (e) {
    const msg = `cannot read ${path}: ${(e as Error).message}`;
    diags.push({ severity: 'error', code: 'read_error', message: msg, file: path });
    return { failure: msg };
  }
  if (text === undefined) return undefined;
  const gate = gated ? managedLayerProblem(path, text) : null;
  if (gate !== null) {
    diags.push({ severity: 'error', code: 'managed_layer_unavailable', message: gate, file: path });
    return { failure: gate };
  }
  const reading = readManagedRequirements(text, path);
  diags.push(...reading.diagnostics);
  if (!reading.ok) return { failure: reading.failure };
  const layer: ManagedLayer = { path, policy: reading.policy, text };
  if (reading.events.length > 0) {
    layer.source = {
      layer: 'managed',
      keySource: path,
      managed: true,
      loaded: {
        file: path,
        kind: 'config.toml',
        ok: true,
        events: reading.events,
        definesHooks: true,
        diagnostics: [],
      },
    };
  }
  return layer;
}

// Feature switch across config layers (higher layers override) and the requirements pin.
function featureDecision(
  settings: FeatureSetting[],
  policy: PolicyDocument | undefined,
  reqPath: string | undefined,
): { enabled: boolean; reason: string } {
  const pin = policy?.features?.hooks ?? policy?.features?.zerocode_hooks;
  if (pin === true)
    return { enabled: true, reason: `pinned on by [features] hooks = true in ${reqPath ?? 'requirements.toml'}` };
  if (pin === false)
    return { enabled: false, reason: `forced off by [features] hooks = false in ${reqPath ?? 'requirements.toml'}` };
  const last = settings[settings.length - 1];
  if (last === undefined) return { enabled: true, reason: 'enabled by default' };
  return last.hooks
    ? { enabled: true, reason: `enabled by [features] ${last.key} = true in ${last.file}` }
    : { enabled: false, reason: `turned off by [features] ${last.key} = false in ${last.file}` };
}

// Builds discovered hooks from a source.
function hooksOf(src: Source, trust: TrustState, platform: NodeJS.Platform): DiscoveredHook[] {
  const out: DiscoveredHook[] = [];
  for (const ev of src.loaded.events) {
    for (const g of ev.groups) {
      for (const h of g.handlers) {
        const hash = hookHash(ev.event, g.matcher, h.handler, platform);
        const key = hookKey(src.keySource, ev.event, g.index, h.index);
        const hook: DiscoveredHook = {
          key,
          hash,
          event: ev.event,
          layer: src.layer,
          sourceFile: src.loaded.file,
          groupIndex: g.index,
          handlerIndex: h.index,
          handler: h.handler,
          // requirements.toml's documented limit applies to the managed layer (other layers keep the reference's value).
          timeoutSec:
            src.layer === 'managed'
              ? appliedTimeoutSec(ev.event, h.handler.timeout)
              : normalizeTimeout(ev.event, h.handler.timeout),
          managed: src.managed,
          trust: src.managed ? 'managed' : trustStatusOf(trust.hooks.get(key), hash),
        };
        if (g.matcher !== undefined) hook.matcher = g.matcher;
        if (src.plugin) hook.plugin = src.plugin;
        if (h.unsupported) hook.unsupported = h.unsupported;
        if (h.broken !== undefined) hook.error = h.broken;
        out.push(hook);
      }
    }
  }
  return out;
}

/**
 * The reference engine's hook-list position (`displayOrder`, used in `hook_run_id`): 0-based over the whole list,
 * sources in listing order, inside a source events in the reference engine's own order, then groups and handlers as
 * written; only command handlers are numbered (prompt/agent handlers are not listed there).
 */
function assignDisplayOrder(perSource: DiscoveredHook[][]): void {
  let order = 0;
  for (const list of perSource) {
    const byEvent = [...list].sort((a, b) => EVENT_SPEC[a.event].referenceOrder - EVENT_SPEC[b.event].referenceOrder);
    for (const h of byEvent) if (h.handler.type === 'command') h.displayOrder = order++;
  }
}

// Why a hook will not run, or undefined when it will.
function skipReasonOf(h: DiscoveredHook, enabled: boolean, featureReason: string, bypass: boolean): string | undefined {
  if (!enabled) return `hooks are off: ${featureReason}`;
  if (h.error !== undefined) return `cannot be read: ${h.error}`;
  if (h.unsupported) return h.unsupported;
  if (h.trust === 'managed' || h.trust === 'trusted') return undefined;
  if (h.trust === 'disabled') return 'disabled by the user';
  if (bypass) return undefined;
  return h.trust === 'modified'
    ? 'changed since it was trusted: review and trust it again'
    : 'not trusted yet: review and trust it';
}

/** The requirements.toml discovery reads for these options (undefined when the managed layer is off). */
export function managedRequirementsPath(options: DiscoverOptions = {}): string | undefined {
  if (options.requirementsPath === null) return undefined;
  return resolveLocations({
    platform: options.platform ?? process.platform,
    env: options.env ?? process.env,
    home: options.home,
    homeDir: options.homeDir,
    systemDir: options.systemDir,
    requirementsPath: options.requirementsPath ?? undefined,
  }).requirementsPath;
}

/** Discovers hooks from every layer. Listing order: managed, system, user, project, session, plugins. */
export function discoverHooks(options: DiscoverOptions = {}): Discovery {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const fs = options.fs ?? nodeFs;
  const p = pathApiFor(platform);
  const loc = resolveLocations({
    platform,
    env,
    home: options.home,
    homeDir: options.homeDir,
    systemDir: options.systemDir,
    requirementsPath: options.requirementsPath ?? undefined,
  });
  const diagnostics: ConfigDiagnostic[] = [];
  const skipped: SkippedSource[] = [];
  /** Sources not loaded because of policy or trust: their hooks are recorded as skipped, never run. */
  const suppressedSources: Array<{ src: Source; reason: string }> = [];
  const quiet: ConfigDiagnostic[] = []; // diagnostics of suppressed sources are not the user's concern here

  // Managed layer first: a broken requirements.toml fails closed.
  const reqPath = options.requirementsPath === null ? undefined : loc.requirementsPath;
  const managed = reqPath === undefined ? undefined : loadManaged(fs, reqPath, diagnostics);
  if (managed && 'failure' in managed) {
    const reason = `${managed.failure}; failing closed: no hooks run until it is fixed`;
    skipped.push({ layer: 'managed', path: reqPath ?? '', reason });
    return { hooksEnabled: false, featureReason: reason, hooks: [], skipped, diagnostics };
  }
  const policy = managed?.policy;
  const managedOnly = policy?.allow_managed_hooks_only === true;

  const system = loadLayerDir(fs, p, loc.systemDir, diagnostics);
  const user = loadLayerDir(fs, p, loc.userDir, diagnostics);
  const trust = readTrustState(user.config?.document);

  // Project layer: the git root above the session cwd (or the given project dir), only when trusted.
  let project: LayerFiles | undefined;
  const projectRoot = options.projectDir ?? (options.cwd !== undefined ? findGitRoot(options.cwd, fs, p) : undefined);
  if (projectRoot !== undefined) {
    const dir = p.join(p.resolve(projectRoot), '.zerotwo');
    const present = fs.exists(p.join(dir, 'hooks.json')) || fs.exists(p.join(dir, 'config.toml'));
    if (present && dir !== loc.userDir && dir !== loc.systemDir) {
      const t = isProjectTrusted(trust.projects, p.resolve(projectRoot), (x) => p.dirname(x));
      if (!t.trusted || managedOnly) {
        skipped.push({
          layer: 'project',
          path: dir,
          reason: !t.trusted
            ? `project ${p.resolve(projectRoot)} is not trusted (trust it with \`zerotwo-hooks trust-project\`)`
            : `allow_managed_hooks_only = true in ${reqPath ?? ''}`,
        });
        const reason = !t.trusted ? 'project_not_trusted' : 'allow_managed_hooks_only';
        for (const f of loadLayerDir(fs, p, dir, quiet).files)
          if (f.ok)
            suppressedSources.push({ src: { layer: 'project', keySource: f.file, loaded: f, managed: false }, reason });
      } else project = loadLayerDir(fs, p, dir, diagnostics);
    }
  }

  const features = [system, user, project]
    .map((l) => l?.config?.features)
    .filter((f): f is FeatureSetting => f !== undefined);
  const feature = featureDecision(features, policy, reqPath);

  const sources: Source[] = [];
  if (managed?.source) sources.push(managed.source);
  for (const f of system.files)
    if (f.ok) sources.push({ layer: 'system', keySource: f.file, loaded: f, managed: true });
  const skipManagedOnly = (layer: LayerKind, path: string): void => {
    skipped.push({ layer, path, reason: `allow_managed_hooks_only = true in ${reqPath ?? ''}` });
  };
  for (const f of user.files) {
    if (!f.ok || !f.definesHooks) continue;
    if (managedOnly) {
      skipManagedOnly('user', f.file);
      suppressedSources.push({
        src: { layer: 'user', keySource: f.file, loaded: f, managed: false },
        reason: 'allow_managed_hooks_only',
      });
    } else sources.push({ layer: 'user', keySource: f.file, loaded: f, managed: false });
  }
  for (const f of project?.files ?? [])
    if (f.ok) sources.push({ layer: 'project', keySource: f.file, loaded: f, managed: false });
  if (options.sessionHooks !== undefined) {
    const name = options.sessionSource ?? '<session>';
    const c = new DiagnosticCollector(name);
    const events = normalizeHooksTable(options.sessionHooks, { file: name, basePath: ['hooks'] }, c);
    const src: Source = {
      layer: 'session',
      keySource: name,
      managed: false,
      loaded: { file: name, kind: 'hooks.json', ok: true, events, definesHooks: events.length > 0, diagnostics: [] },
    };
    if (managedOnly) {
      skipManagedOnly('session', name);
      suppressedSources.push({ src, reason: 'allow_managed_hooks_only' });
    } else {
      diagnostics.push(...c.diagnostics);
      sources.push(src);
    }
  }
  for (const spec of options.plugins ?? []) {
    const s: PluginSpec = typeof spec === 'string' ? { root: spec } : spec;
    if (managedOnly) {
      skipManagedOnly('plugin', p.resolve(s.root));
      continue;
    }
    const plugin = resolvePlugin(s, fs, p);
    diagnostics.push(...plugin.diagnostics);
    if (plugin.skipReason) skipped.push({ layer: 'plugin', path: plugin.root, reason: plugin.skipReason });
    const dataDir = s.dataDir ?? p.join(loc.userDir, 'plugins', 'data', plugin.name);
    for (const src of plugin.sources) {
      diagnostics.push(...src.loaded.diagnostics);
      if (src.loaded.ok)
        sources.push({
          layer: 'plugin',
          keySource: src.keySource,
          loaded: src.loaded,
          managed: false,
          plugin: { name: plugin.name, root: plugin.root, dataDir },
        });
    }
  }

  const bypass = options.bypassTrust === true;
  const perSource = sources.map((s) => hooksOf(s, trust, platform));
  assignDisplayOrder(perSource);
  const hooks = perSource.flat();
  let needReview = 0;
  for (const h of hooks) {
    const reason = skipReasonOf(h, feature.enabled, feature.reason, bypass);
    h.runnable = reason === undefined;
    if (reason !== undefined) h.skipReason = reason;
    if (h.trust === 'untrusted' || h.trust === 'modified') needReview++;
  }
  if (bypass && feature.enabled) {
    diagnostics.push({
      severity: 'warning',
      code: 'hook_trust_bypassed',
      message: `hook trust is bypassed (--dangerously-bypass-hook-trust): every enabled hook runs without review${needReview > 0 ? `, including ${needReview} new or changed hook(s)` : ''}`,
    });
  }
  if (needReview > 0 && !bypass && feature.enabled) {
    diagnostics.push({
      severity: 'warning',
      code: 'hooks_need_review',
      message: `${needReview} hook(s) are new or changed and need review before they run: open /hooks or run \`zerotwo-hooks list\``,
    });
  }
  const suppressed = suppressedSources.flatMap(({ src, reason }) =>
    hooksOf(src, trust, platform).map((h) => ({ ...h, runnable: false, skipReason: reason })),
  );
  const discovery: Discovery = {
    hooksEnabled: feature.enabled,
    featureReason: feature.reason,
    hooks,
    skipped,
    diagnostics,
    ...(suppressed.length > 0 ? { suppressed } : {}),
  };
  if (managed && reqPath !== undefined) {
    const dir = platform === 'win32' ? managed.policy.hooks?.windows_managed_dir : managed.policy.hooks?.managed_dir;
    discovery.managed = {
      requirementsPath: reqPath,
      allowManagedHooksOnly: managedOnly,
      digest: `sha256:${sha256Hex(managed.text)}`,
    };
    if (dir !== undefined) discovery.managed.managedDir = dir.startsWith('~/') ? p.join(loc.osHome, dir.slice(2)) : dir;
  }
  return discovery;
}
