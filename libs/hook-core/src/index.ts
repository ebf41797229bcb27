// @hookwarden/hook-core: the ZeroCode hooks engine (configuration, trust, matching, running, outcomes, records).
// Every public name is listed here or, for trust, bundle, wire and inventory, in that folder's own explicit index
// (re-exported whole, so each name is listed once); CLI plumbing (exit codes, process startup, snapshot warm-up) lives behind
// `@hookwarden/hook-core/cli` (runCli stays here too, for the agent's `hookwarden-agent hooks`).
export { HOOK_CORE_VERSION } from './version';

// --- Shared types and the per-event table ---
export {
  HOOK_EVENTS,
  type HookEvent,
  type LayerKind,
  type HandlerConfig,
  type MatcherGroupConfig,
  type ConfigDiagnostic,
  type TrustStatus,
  type DiscoveredHook,
  type SkippedSource,
  type Discovery,
} from './types';
export { EVENT_SPEC, eventSpec, type EventSpec, type MatcherField, type InputFieldDefault } from './event-spec';

// --- Policy (requirements.toml): schema, parse/validate, canonical render, lint ---
export {
  PolicyHandlerSchema,
  PolicyGroupSchema,
  PolicyHooksSchema,
  PolicyFeaturesSchema,
  PolicyDocumentSchema,
  INTERPRETED_TOP_KEYS,
  HOOKS_TABLE_KEYS,
  HANDLER_KEY_ORDER,
  type PolicyHandler,
  type PolicyGroup,
  type PolicyHooks,
  type PolicyDocument,
  parsePolicyToml,
  validatePolicyObject,
  type PolicyParseResult,
  renderPolicyToml,
  findTomlComment,
  TomlFloat,
  lintPolicy,
  isPosixManagedDir,
  isWindowsAbsolute,
  unsafeFilePath,
  MAX_POLICY_TIMEOUT_SEC,
  CONTRACT_VERSION,
  CONTRACTS,
  endpointContract,
  requiredContract,
  type ContractVersion,
  type PolicyFile,
  type LintPolicyOptions,
  type LintResult,
} from './policy';

// --- Configuration: discovery, loading, lint ---
export {
  discoverHooks,
  type DiscoverOptions,
  nodeFs,
  resolveLocations,
  findGitRoot,
  MAX_CONFIG_FILE_BYTES,
  type DiscoveryFs,
  type Locations,
  CONTEXT_EVENTS,
  MATCHER_EVENTS,
  DEFAULT_TIMEOUT_SEC,
  SESSION_END_DEFAULT_TIMEOUT_SEC,
  SESSION_END_MAX_TIMEOUT_SEC,
  DEFAULT_ADDITIONAL_CONTEXT_LIMIT,
  isHookEvent,
  eventSnake,
  normalizeTimeout,
  appliedTimeoutSec,
  MAX_TIMEOUT_SEC,
  readManagedRequirements,
  managedLayerRefusal,
  type ManagedReading,
  type BrokenManagedHook,
  validateMatcher,
  REFERENCE_WARNING_CODES,
  loadHooksJsonText,
  loadConfigTomlText,
  parseTomlLocated,
  type TomlParseResult,
  type LoadedFile,
  type FeatureSetting,
  normalizeHooksTable,
  type NormalizedEvent,
  type NormalizedGroup,
  type NormalizedHandler,
  type PluginSpec,
  formatPath,
  lintFile,
  lintText,
  lintKindOf,
  HOOK_DROPPING_CODES,
  MAX_JSON_DEPTH,
  type LintKind,
  LAYER_DIR_NAME,
  LAYER_STATE_FILE,
  LAYER_READERS_DIR,
  managedLayerProblem,
  holdManagedLayer,
  type LayerGateState,
} from './config';

// --- Trust: canonical JSON, definition hash and key, persisted state ---
export * from './trust'; // explicit list in trust/index.ts

// --- Contract shared by the API and the agent: bundle manifest and content rules, key list, assignment, wire types ---
export * from './bundle'; // explicit list in bundle/index.ts
export * from './wire'; // explicit list in wire/index.ts
export * from './identity'; // explicit list in identity/index.ts

// --- Hook inventory and release impact preview ---
export * from './inventory'; // explicit list in inventory/index.ts

// --- Matching: the linear-time regex compiler and matcher semantics per event ---
export {
  compileLinearRegex,
  regexError,
  MAX_REGEX_PATTERN_LENGTH,
  type LinearRegex,
  type RegexCompileResult,
  compileMatcher,
  matcherSubject,
  matcherMatches,
  canonicalToolName,
  toolMatchCandidates,
  eventUsesMatcher,
  MATCHER_FIELD,
  SHELL_TOOL_NAMES,
  type MatcherFn,
} from './match';

// --- Running: shell selection, plugin variables, the process runner ---
export {
  runCommand,
  systemClock,
  MAX_TIMER_DELAY_MS,
  type Clock,
  type SpawnFn,
  type RunRequest,
  type RunnerOptions,
  type RunResult,
  shellInvocation,
  commandFor,
  substitutePluginVars,
  pluginEnv,
  type ShellOptions,
  type ShellInvocation,
} from './run';

// --- Outcomes: per-event parsing and deterministic aggregation ---
export {
  parseRun,
  eventProducesContext,
  aggregate,
  type AggregateInput,
  type Aggregated,
  type RunEffect,
  type ParseVerdict,
  type ParsedRun,
  type HookOutcome,
} from './outcome';

// --- Spilling: previews of oversized model-visible output ---
export {
  spillIfNeeded,
  approxTokens,
  sanitizeSessionId,
  buildPreview,
  DEFAULT_CONTEXT_LIMIT_TOKENS,
  type SpillFs,
  type SpillOptions,
  type SpillResult,
} from './spill';

// --- Run records: schema, capture settings and redaction, sinks, the spool ---
export {
  runRecordSchema,
  runRecordDraftSchema,
  outputCaptureSchema,
  toolCallSchema,
  type RunRecord,
  type RunRecordDraft,
  type OutputCapture,
  type ToolCall,
  sha256Hex,
  CAPTURE_MODES,
  type CaptureMode,
  MAX_EXCERPT_BYTES_LIMIT,
  MAX_REDACT_PATTERNS,
  MAX_REDACT_PATTERN_CHARS,
  captureSettingsSchema,
  type CaptureSettings,
  DEFAULT_CAPTURE_SETTINGS,
  DEFAULT_REDACTIONS,
  REDACTED,
  REDACT_MARGIN_BYTES,
  MAX_ERROR_BYTES,
  compileRedactions,
  redactPatternError,
  redactText,
  redactExcerpt,
  boundBytes,
  captureOutput,
  captureText,
  captureToolCall,
  type CompiledRedactions,
  MemorySink,
  type RunRecordSink,
  SpoolSink,
  readSpoolState,
  listClosedSegments,
  type SpoolSinkOptions,
  type SpoolState,
} from './record';

// --- Engine: dispatch and explain ---
export {
  dispatch,
  type DispatchOptions,
  type DispatchResult,
  explain,
  type ExplainQuery,
  type ExplainEntry,
  type ExplainResult,
  buildEventInput,
  considerHooks,
  type Consideration,
  type EligibilityOptions,
} from './engine';

// --- The zerotwo-hooks CLI, in-process (more under `@hookwarden/hook-core/cli`) ---
export { runCli } from './cli/program';
