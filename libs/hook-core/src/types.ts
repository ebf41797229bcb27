// Shared types of the hooks engine: the contract between config/trust (discovery) and match/run/outcome (dispatch).

/** Every hook event of the spec, in the spec's order. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'UserPromptSubmit',
  'SubagentStop',
  'Stop',
  'SessionStart',
  'SubagentStart',
  'SessionEnd',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Where a hook definition came from. Precedence (low → high): plugin, system, user, project, session, managed. */
export type LayerKind = 'system' | 'user' | 'project' | 'session' | 'plugin' | 'managed';

/** A handler exactly as configured, after schema validation (before trust or expansion). */
export interface HandlerConfig {
  type: 'command' | 'prompt' | 'agent';
  /** Raw command text before any variable expansion. */
  command?: string;
  /** Windows-only override (`commandWindows` or `command_windows`). */
  commandWindows?: string;
  /** Seconds as written (may be absent). */
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
  additionalContextLimit?: number;
}

/** One configured matcher group. `matcher` undefined means absent; `""` is kept distinct. */
export interface MatcherGroupConfig {
  matcher?: string;
  hooks: HandlerConfig[];
}

/** A configuration problem, always located. */
export interface ConfigDiagnostic {
  severity: 'error' | 'warning';
  /** Stable machine code, e.g. `unknown_event`, `invalid_matcher`, `toml_syntax`. */
  code: string;
  message: string;
  /** File the problem is in (absolute path, or a logical name such as `requirements.toml`). */
  file?: string;
  /** JSON path (`$.hooks.PreToolUse[0].matcher`) or TOML key path. */
  path?: string;
  /** 1-based line/column when known (TOML, JSON syntax errors). */
  line?: number;
  column?: number;
}

/** Trust status of a discovered hook. Only `managed` and `trusted` run (or any enabled hook under bypass). */
export type TrustStatus = 'managed' | 'trusted' | 'modified' | 'untrusted' | 'disabled';

/** A handler found during discovery, with its identity and trust state. */
export interface DiscoveredHook {
  /** `<source file>:<event_snake>:<groupIndex>:<handlerIndex>` (suffix matches the reference engine's key). */
  key: string;
  /** `sha256:<hex>` definition hash (see trust/hash). */
  hash: string;
  event: HookEvent;
  layer: LayerKind;
  /** Absolute path of the file that defined it (hooks.json, config.toml, requirements.toml, plugin manifest). */
  sourceFile: string;
  /** Plugin name / root / data dir for plugin hooks. */
  plugin?: { name: string; root: string; dataDir: string };
  groupIndex: number;
  handlerIndex: number;
  matcher?: string;
  handler: HandlerConfig;
  /** Normalized timeout in seconds actually applied (default 600; SessionEnd default 1, cap 3; at least 1). */
  timeoutSec: number;
  managed: boolean;
  trust: TrustStatus;
  /**
   * 0-based position in the reference engine's whole hook list (its `displayOrder`), used in Stop/SubagentStop
   * `hook_run_id`s; absent for handlers that engine does not list (prompt/agent).
   */
  displayOrder?: number;
  /** Set when the hook cannot run regardless of trust (e.g. `prompt`/`agent` type, `async: true`). */
  unsupported?: string;
  /**
   * A managed hook that cannot be read as written (invalid field type, unparseable matcher, …): why. It never runs;
   * `list`/`explain` show it and dispatch records it as `failed` on every event occurrence it could have matched.
   */
  error?: string;
  /** Whether dispatch will run it (feature on, supported, and managed/trusted — or enabled under bypass). */
  runnable?: boolean;
  /** Why it will not run (never silent), when `runnable` is false. */
  skipReason?: string;
}

/** A whole source (layer file or plugin) that was skipped, with the reason (never silent). */
export interface SkippedSource {
  layer: LayerKind;
  path: string;
  reason: string;
}

/** Result of discovery: every hook, every skipped source, every warning/error. */
export interface Discovery {
  hooksEnabled: boolean;
  /** Why hooks are on/off (feature flags and pins). */
  featureReason: string;
  hooks: DiscoveredHook[];
  skipped: SkippedSource[];
  diagnostics: ConfigDiagnostic[];
  /**
   * Hooks of sources not loaded because of policy or trust (`skipReason` `allow_managed_hooks_only` or
   * `project_not_trusted`): never run, recorded as skipped so audits see what was suppressed.
   */
  suppressed?: DiscoveredHook[];
  /** Managed policy in force (from requirements.toml), if any. */
  managed?: {
    requirementsPath: string;
    allowManagedHooksOnly: boolean;
    managedDir?: string;
    digest: string;
  };
}
