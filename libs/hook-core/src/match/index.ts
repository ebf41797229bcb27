// Matching stage: matcher semantics per event.
export * from './matcher';
