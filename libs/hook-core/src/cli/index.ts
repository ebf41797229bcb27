// CLI stage: the zerotwo-hooks program (also usable in-process through runCli).
export { runCli, buildProgram, renderList, EXIT, CliError, processIo, type CliIo, type CliState } from './program';
export { startCli, userArgs } from './startup';
export { warmUpCli } from './warm-up';
