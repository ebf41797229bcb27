// `@hookwarden/hook-core/cli`: the zerotwo-hooks program in-process (exit codes, stream type) and the plumbing of a
// CLI process (how it was started, the startup-snapshot warm-up), shared with hookwarden-agent.
export { runCli, renderList, EXIT_CODES_HELP } from './program';
export { EXIT, type CliIo } from './common';
export { startCli, userArgs } from './startup';
export { warmUpCli } from './warm-up';
export { HOOK_CORE_VERSION } from '../version';
