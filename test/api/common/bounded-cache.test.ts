// The Map-based bounded cache behind the credential, session-key and nonce caches: LRU eviction at max, expiry,
// dispose on every way out, and memory that grows with use (no preallocation).
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../apps/api/src/common/bounded-cache';

// A cache on a hand-driven clock; `gone` records every disposed key.
function make(max: number, ttl = 0) {
  const clock = { t: 1_000 };
  const gone: string[] = [];
  const cache = new BoundedCache<string, number>({
    max,
    ttl,
    now: () => clock.t,
    dispose: (v, k) => gone.push(`${k}=${v}`),
  });
  return { cache, clock, gone };
}

describe('BoundedCache', () => {
  it('evicts the least recently used entry beyond max (a get refreshes, a has does not)', () => {
    const { cache, gone } = make(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    expect(cache.has('b')).toBe(true); // b keeps its place
    cache.set('d', 4);
    expect(gone).toEqual(['b=2']);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    expect(cache.size).toBe(3);
  });

  it('expires entries after the default ttl or their own, and disposes them when read', () => {
    const { cache, clock, gone } = make(10, 1_000);
    cache.set('short', 1);
    cache.set('long', 2, { ttl: 5_000 });
    clock.t += 999;
    expect(cache.get('short')).toBe(1);
    clock.t += 1;
    expect(cache.get('short')).toBeUndefined();
    expect(cache.has('long')).toBe(true);
    expect(gone).toEqual(['short=1']);
    clock.t += 4_000;
    expect(cache.has('long')).toBe(false);
    expect(gone).toEqual(['short=1', 'long=2']);
    expect(cache.size).toBe(0);
  });

  it('without a ttl entries do not expire', () => {
    const { cache, clock } = make(2);
    cache.set('k', 7);
    clock.t += 365 * 24 * 3600 * 1000;
    expect(cache.get('k')).toBe(7);
  });

  it('disposes a replaced value (not the same value set again), a deleted one and every one on clear', () => {
    const { cache, gone } = make(5);
    cache.set('a', 1);
    cache.set('a', 1);
    expect(gone).toEqual([]);
    cache.set('a', 2);
    expect(gone).toEqual(['a=1']);
    expect(cache.delete('a')).toBe(true);
    expect(cache.delete('a')).toBe(false);
    expect(gone).toEqual(['a=1', 'a=2']);
    cache.set('x', 1);
    cache.set('y', 2);
    cache.clear();
    expect(gone).toEqual(['a=1', 'a=2', 'x=1', 'y=2']);
    expect(cache.size).toBe(0);
  });

  it('a replaced key becomes the most recent', () => {
    const { cache, gone } = make(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3);
    cache.set('c', 4);
    expect(gone).toEqual(['a=1', 'b=2']);
    expect(cache.get('a')).toBe(3);
  });

  it('refuses a max that is not a positive integer', () => {
    expect(() => new BoundedCache({ max: 0 })).toThrow(/max/);
    expect(() => new BoundedCache({ max: 1.5 })).toThrow(/max/);
  });

  it('holds 200,000 entries within its bound and drops the oldest first', () => {
    const cache = new BoundedCache<string, true>({ max: 200_000, ttl: 600_000 });
    for (let i = 0; i < 250_000; i++) cache.set(`n${i}`, true);
    expect(cache.size).toBe(200_000);
    expect(cache.has('n49999')).toBe(false);
    expect(cache.has('n50000')).toBe(true);
    expect(cache.has('n249999')).toBe(true);
  });
});
