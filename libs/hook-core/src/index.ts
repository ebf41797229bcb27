// @hookwarden/hook-core: the ZeroCode hooks engine (configuration, trust, matching, running, outcomes, records).
export * from './types';

// --- Configuration & trust (config/, policy/, trust/) ---
export * from './policy';
