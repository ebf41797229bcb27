// Running stage: shell selection, plugin variables and the process runner.
export * from './shell';
export * from './runner';
