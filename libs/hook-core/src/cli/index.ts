// `@hookwarden/hook-core/cli`: the zerotwo-hooks program, in-process, with its exit codes and stream type.
export { runCli, EXIT_CODES_HELP } from './program';
export { EXIT, type CliIo } from './common';
export { HOOK_CORE_VERSION } from './version';
