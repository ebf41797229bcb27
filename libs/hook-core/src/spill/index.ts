// Spill stage: previews of oversized hook output.
export * from './spill';
