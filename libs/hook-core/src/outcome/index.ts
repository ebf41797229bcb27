// Outcome stage: per-event parsing of hook output and deterministic aggregation.
export * from './types';
export * from './parse';
export * from './aggregate';
