// Matching stage: the linear-time regex compiler and matcher semantics per event.
export * from './regex';
export * from './matcher';
