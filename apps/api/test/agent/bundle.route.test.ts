// Long-poll timing rules of the bundle routes: `Prefer: wait=N` parsing and how long a poll is held.
import { describe, expect, it } from 'vitest';
import { HOLD_JITTER_FROM_SEC, MAX_WAIT_SEC, holdMs, preferWait } from '../../src/agent/bundle.route';

describe('preferWait', () => {
  it('reads wait=N, capped at the longest poll, 0 when absent or malformed', () => {
    expect(preferWait('wait=30')).toBe(30);
    expect(preferWait('respond-async, wait="45"')).toBe(45);
    expect(preferWait('wait=600')).toBe(MAX_WAIT_SEC);
    expect(preferWait(undefined)).toBe(0);
    expect(preferWait('wait=-1')).toBe(0);
    expect(preferWait('nowait=5')).toBe(0);
  });
});

describe('holdMs', () => {
  it('holds a short poll for its whole wait', () => {
    for (const r of [0, 0.5, 0.999]) expect(holdMs(HOLD_JITTER_FROM_SEC - 1, () => r)).toBe(9000);
    expect(holdMs(1, () => 0.999)).toBe(1000);
  });

  it('ends a long poll within the last fifth of its wait, spread by the random draw', () => {
    expect(holdMs(60, () => 0)).toBe(60_000);
    expect(holdMs(60, () => 0.5)).toBe(54_000);
    expect(holdMs(60, () => 0.999_999)).toBeGreaterThan(48_000);
    const holds = new Set(Array.from({ length: 200 }, () => holdMs(60)));
    for (const h of holds) {
      expect(h).toBeGreaterThan(48_000);
      expect(h).toBeLessThanOrEqual(60_000);
    }
    // 30,000 agents whose polls began together come back over seconds, not in one: many distinct moments.
    expect(holds.size).toBeGreaterThan(150);
  });
});
