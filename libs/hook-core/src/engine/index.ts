// Engine stage: dispatch and explain.
export * from './input';
export * from './eligibility';
export * from './dispatch';
export * from './explain';
export * from './shadow';
