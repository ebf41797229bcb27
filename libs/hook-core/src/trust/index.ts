// Public API of hook trust: canonical JSON, definition hash and key, persisted state.
export { canonicalJson } from './canonical-json';
export { hookHash, hookIdentity, hookKey, hookKeySuffix } from './hash';
export { readTrustState, trustStatusOf, isProjectTrusted, type TrustState, type HookStateEntry } from './state';
export { trustHook, trustAll, disableHook, enableHook, trustProject, type TrustTarget } from './store';
export { setTomlTableKey } from './edit';
