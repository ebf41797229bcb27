// @hookwarden/hook-core: the ZeroCode hooks engine (configuration, trust, matching, running, outcomes, records).
// Every public name is listed here; CLI plumbing lives behind `@hookwarden/hook-core/cli` (runCli stays here too,
// for the agent's `hookwarden-agent hooks`).

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
  lintPolicy,
  isPosixManagedDir,
  isWindowsAbsolute,
  unsafeFilePath,
  MAX_POLICY_TIMEOUT_SEC,
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
  validateMatcher,
  REFERENCE_WARNING_CODES,
  loadHooksJsonText,
  loadConfigTomlText,
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
} from './config';

// --- Trust: canonical JSON, definition hash and key, persisted state ---
export {
  canonicalJson,
  hookHash,
  hookIdentity,
  hookKey,
  hookKeySuffix,
  readTrustState,
  trustStatusOf,
  isProjectTrusted,
  type TrustState,
  type HookStateEntry,
  trustHook,
  trustAll,
  disableHook,
  enableHook,
  trustProject,
  type TrustTarget,
  setTomlTableKey,
} from './trust';

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

// --- Run records: schema, capture and redaction, sinks, the spool ---
export {
  runRecordSchema,
  runRecordDraftSchema,
  outputCaptureSchema,
  type RunRecord,
  type RunRecordDraft,
  type OutputCapture,
  sha256Hex,
  DEFAULT_CAPTURE_POLICY,
  DEFAULT_REDACTIONS,
  REDACTED,
  compileRedactions,
  redactPatternError,
  redactText,
  redactExcerpt,
  boundBytes,
  captureOutput,
  type CapturePolicy,
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
