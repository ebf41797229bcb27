// The message of the BundleRejected a call throws (fails the test when it throws nothing or something else).
import { expect } from 'vitest';
import { BundleRejected } from '../../src/bundle/verify';

export function rejection(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BundleRejected);
    return (err as Error).message;
  }
  throw new Error('not rejected');
}
