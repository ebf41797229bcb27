// @hookwarden/hook-core: the ZeroCode hooks engine (configuration, trust, matching, running, outcomes, records).
export * from './types';
export { HOOK_CORE_VERSION } from './version';

// --- Configuration & trust (config/, policy/, trust/) ---
export * from './policy';
export * from './config';
export * from './trust';

// --- Contract shared by the API and the agent (bundle manifest and content rules, key list, wire types) ---
export * from './bundle';
export * from './wire';

// --- Hook inventory and release impact preview (inventory/) ---
export * from './inventory';

// --- engine (hc-engine): matching, running, outcomes, spilling, run records, dispatch ---
export * from './match';
export * from './run';
export * from './outcome';
export * from './spill';
export * from './record';
export * from './engine';
export * from './cli';
