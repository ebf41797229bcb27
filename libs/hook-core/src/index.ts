// @hookwarden/hook-core: the ZeroCode hooks engine (configuration, trust, matching, running, outcomes, records).
export const HOOK_CORE_VERSION = '0.1.0';
