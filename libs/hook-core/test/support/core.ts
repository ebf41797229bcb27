// hook-core's own tests read its modules directly (the package entry lists only what other packages use): every
// stage's index, in one import.
export * from '../../src/version';
export * from '../../src/types';
export * from '../../src/event-spec';
export * from '../../src/policy';
export * from '../../src/config';
export * from '../../src/trust';
export * from '../../src/bundle';
export * from '../../src/wire';
export * from '../../src/identity';
export * from '../../src/inventory';
export * from '../../src/versions';
export * from '../../src/match';
export * from '../../src/run';
export * from '../../src/outcome';
export * from '../../src/spill';
export * from '../../src/record';
export * from '../../src/engine';
export { runCli } from '../../src/cli/program';
