// The engine's version (libs/hook-core/package.json), printed by `zerotwo-hooks --version`.
export const HOOK_CORE_VERSION = '0.1.0';
