// Public API of configuration loading and discovery.
export { discoverHooks, type DiscoverOptions } from './discover';
export { nodeFs, resolveLocations, findGitRoot, MAX_CONFIG_FILE_BYTES, type DiscoveryFs, type Locations } from './env';
export {
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
} from './events';
export { readManagedRequirements, managedLayerRefusal, type ManagedReading, type BrokenManagedHook } from './managed';
export { validateMatcher } from './matcher';
export { REFERENCE_WARNING_CODES } from './messages';
export { loadHooksJsonText, loadConfigTomlText, type LoadedFile, type FeatureSetting } from './load-files';
export { normalizeHooksTable, type NormalizedEvent, type NormalizedGroup, type NormalizedHandler } from './normalize';
export type { PluginSpec } from './plugins';
export { formatPath } from './diagnostics';
export { lintFile, lintText, lintKindOf, HOOK_DROPPING_CODES, type LintKind } from './lint';
export { MAX_JSON_DEPTH } from './json-located';
export {
  LAYER_DIR_NAME,
  LAYER_STATE_FILE,
  LAYER_READERS_DIR,
  managedLayerProblem,
  holdManagedLayer,
  type LayerGateState,
} from './layer-gate';
export { parseTomlLocated, type TomlParseResult } from './toml-located';
