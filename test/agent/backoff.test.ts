// The agent's backoff and its abortable sleep: delays grow with jitter up to the cap; no abort listener piles up.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Backoff, sleep } from '../../apps/agent-sync/src/client/backoff';

describe('Backoff', () => {
  it('doubles with full jitter up to the cap, honours Retry-After and resets', () => {
    const b = new Backoff(500, 4000, () => 1);
    expect([b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([500, 1000, 2000, 4000, 4000]);
    expect(new Backoff(500, 4000, () => 0).next()).toBe(250);
    expect(b.next(1500)).toBe(1500);
    b.reset();
    expect(b.next()).toBe(500);
  });
});

describe('sleep', () => {
  it('removes its abort listener when the timer fires (listeners stay bounded over many retries)', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 50; i++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('ends early when the signal aborts, and at once when it already has', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    await pending;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await sleep(60_000, controller.signal);
  });
});
