// The package version printed by `zerotwo-hooks --version` (a test keeps it equal to package.json's).
export const HOOK_CORE_VERSION = '0.1.0';
