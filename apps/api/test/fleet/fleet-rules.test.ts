// The fleet console's pure rules: the fleet state of an endpoint and how a search text is read.
import { describe, expect, it } from 'vitest';
import { fleetStateOf, inFleetOf, OUTSIDE_FLEET_STATES, STALE_AFTER_MS } from '../../src/fleet/fleet-state';
import { searchTerms } from '../../src/search/search-terms';

const NOW = Date.UTC(2026, 11, 2, 12);
const base = { admission: 'active', revokedAt: null, lastSeenAt: new Date(NOW - 1000), state: 'applied' };

describe('fleetStateOf', () => {
  it.each([
    [{}, 'applied'],
    [{ state: 'failed' }, 'failed'],
    [{ state: 'drifted' }, 'drifted'],
    [{ state: 'pending' }, 'pending'],
    [{ state: 'something-new' }, 'pending'],
    [{ lastSeenAt: null }, 'never checked in'],
    [{ lastSeenAt: new Date(NOW - STALE_AFTER_MS - 1), state: 'failed' }, 'stale'],
    [{ lastSeenAt: new Date(NOW - STALE_AFTER_MS) }, 'applied'],
    [{ admission: 'pending', lastSeenAt: null }, 'pending approval'],
    [{ revokedAt: new Date(NOW), admission: 'pending' }, 'revoked'],
    [{ admission: 'rejected', revokedAt: new Date(NOW) }, 'rejected'],
    [{ admission: 'retired' }, 'retired'],
  ])('%j → %s', (over, want) => {
    expect(fleetStateOf({ ...base, ...over }, NOW)).toBe(want);
  });
});

describe('inFleetOf', () => {
  it('counts admitted endpoints that are not revoked', () => {
    expect(inFleetOf(base)).toBe(true);
    expect(inFleetOf({ ...base, revokedAt: new Date(NOW) })).toBe(false);
    for (const admission of ['pending', 'rejected', 'retired']) expect(inFleetOf({ ...base, admission })).toBe(false);
  });

  it('agrees with the fleet states outside the fleet, for every combination of the columns', () => {
    let n = 0;
    for (const admission of ['active', 'pending', 'rejected', 'retired'])
      for (const revokedAt of [null, new Date(NOW)])
        for (const lastSeenAt of [null, new Date(NOW - 1000), new Date(NOW - STALE_AFTER_MS - 1)])
          for (const state of ['applied', 'failed', 'drifted', 'pending']) {
            const e = { admission, revokedAt, lastSeenAt, state };
            expect(inFleetOf(e), JSON.stringify(e)).toBe(!OUTSIDE_FLEET_STATES.includes(fleetStateOf(e, NOW)));
            n++;
          }
    expect(n).toBe(96);
  });
});

describe('searchTerms', () => {
  it('reads ids, hash prefixes, numbers and names', () => {
    expect(searchTerms('  dev-0001 ')).toEqual({ text: 'dev-0001', uuid: null, hex: null, number: null, rest: null });
    const id = '3A83DCDE-9D6A-42EB-82A7-26E45948895A';
    expect(searchTerms(id)).toMatchObject({ uuid: id.toLowerCase(), hex: null, number: null });
    expect(searchTerms('sha256:ABCDEF12')).toMatchObject({ hex: 'abcdef12', number: null });
    expect(searchTerms('abcde')).toMatchObject({ hex: null });
    expect(searchTerms('base v3')).toMatchObject({ number: 3, rest: 'base' });
    expect(searchTerms('fleet alpha r12')).toMatchObject({ number: 12, rest: 'fleet alpha' });
    expect(searchTerms('#4')).toMatchObject({ number: 4, rest: null });
    expect(searchTerms('123456')).toMatchObject({ number: 123456, hex: '123456' });
    expect(searchTerms('v1.2')).toMatchObject({ number: null });
    expect(searchTerms('x'.repeat(199) + ' 9')).toMatchObject({ number: 9, rest: 'x'.repeat(199) });
  });
});
