// @hookwarden/cli: the hookwarden admin CLI (its program, and the GitOps pieces for tests and embedding).
export { buildProgram } from './cli/program';
export { main } from './cli/run';
export { CliError, formatProblem, type Problem } from './cli/errors';
export { readLayout, type DesiredState, type DesiredPolicy, type DesiredGroup, type Rollout } from './gitops/layout';
export { prepareLocalVersion, versionDigest, type LocalVersion } from './gitops/content';
export { diffContent } from './gitops/diff';
export { computePlan, type Plan, type Step } from './gitops/plan';
export { renderPlan } from './gitops/render';
export { parseDuration } from './cli/parse';
export { resolveTarget, loadConfig, saveConfig } from './config/contexts';
