// Record stage: run-record schema, capture policy, sinks and the spool.
export * from './schema';
export * from './canonical';
export * from './capture';
export * from './capture-schema';
export * from './sink';
export * from './spool';
