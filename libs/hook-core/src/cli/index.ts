// `@hookwarden/hook-core/cli`: the zerotwo-hooks program in-process (exit codes, stream type) and the plumbing of a
// CLI process (how it was started, the startup-snapshot warm-up), shared with hookwarden-agent. Importing it loads
// neither the commander program nor the warm-up: a hook event's dispatch line needs neither (./run-cli).
export { runCli, renderList, warmUpCli } from './run-cli';
export { EXIT, EXIT_CODES_HELP, type CliIo } from './common';
export { startCli, userArgs } from './startup';
export { HOOK_CORE_VERSION } from '../version';
// The capture settings as the hooks path reads them (the agent's cached copy), without loading zod when they are plain.
export { parseCaptureSettings, DEFAULT_CAPTURE_SETTINGS } from '../record/capture';
export type { CaptureSettings } from '../record/capture-schema';
