// The hook failure rule over endpoints (pure): each endpoint's own rate weighs once, reporting endpoints need
// minHookRuns runs, and fewer than minReportingEndpoints never close the gate.
import { describe, expect, it } from 'vitest';
import { type EndpointRuns, hookGate, type HookGateSettings } from '../../src/releases/hook-gate';
import { offeredTo, reportedRevisions, servedByReport } from '../../src/releases/rollout';

const ep = (n: number, ran: number, failed: number): EndpointRuns => ({
  endpointId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  hostname: `h${n}`,
  ran,
  failed,
});
const settings = (s: Partial<HookGateSettings> = {}): HookGateSettings => ({
  maxHookFailureRate: 0.5,
  minHookRuns: 20,
  minReportingEndpoints: 3,
  ...s,
});

describe('hookGate', () => {
  it('is open without endpoints, and without a threshold whatever they report', () => {
    expect(hookGate([], settings())).toEqual({ endpoints: [], reportingEndpoints: 0, failureRate: null, reason: null });
    const r = hookGate([ep(1, 30, 30), ep(2, 30, 30), ep(3, 30, 30)], settings({ maxHookFailureRate: null }));
    expect(r).toMatchObject({ reportingEndpoints: 3, failureRate: 1, reason: null });
  });

  it('one endpoint cannot close it: below minReportingEndpoints the rate is shown but never pauses', () => {
    const r = hookGate([ep(1, 1000, 1000)], settings());
    expect(r).toMatchObject({ reportingEndpoints: 1, failureRate: 1, reason: null });
    expect(hookGate([ep(1, 1000, 1000), ep(2, 20, 20)], settings()).reason).toBeNull();
    expect(hookGate([ep(1, 1000, 1000)], settings({ minReportingEndpoints: 1 })).reason).toMatch(/^hook failure rate/);
  });

  it('weighs each endpoint once, however many runs it sent (the mean of rates, not the share of runs)', () => {
    // Per run: 40 failed of 1040 (0.04); per endpoint: (0 + 1 + 1) / 3 = 0.667.
    const r = hookGate([ep(1, 1000, 0), ep(2, 20, 20), ep(3, 20, 20)], settings());
    expect(r.failureRate).toBeCloseTo(2 / 3, 10);
    expect(r.reason).toBe(
      "hook failure rate 0.667 (mean of 3 reporting endpoints' own rates; 2 above 0.5: " +
        `h2 (${ep(2, 0, 0).endpointId}) 1.000 = 20/20, h3 (${ep(3, 0, 0).endpointId}) 1.000 = 20/20) exceeds 0.5`,
    );
    // And the reverse: one endpoint failing a lot of runs cannot drag healthy endpoints over the threshold.
    expect(hookGate([ep(1, 100_000, 100_000), ep(2, 20, 0), ep(3, 20, 0)], settings()).failureRate).toBeCloseTo(1 / 3);
  });

  it('leaves endpoints under minHookRuns (and without runs) out of the mean, listing them after the reporting ones', () => {
    const r = hookGate([ep(1, 0, 0), ep(2, 19, 19), ep(3, 20, 0), ep(4, 20, 0), ep(5, 20, 10)], settings());
    expect(r.reportingEndpoints).toBe(3);
    expect(r.failureRate).toBeCloseTo(0.5 / 3, 10);
    expect(r.endpoints.map((e) => [e.hostname, e.reporting, e.failureRate])).toEqual([
      ['h2', false, 1],
      ['h5', true, 0.5],
      ['h3', true, 0],
      ['h4', true, 0],
      ['h1', false, null],
    ]);
  });

  it('closes only strictly above the threshold', () => {
    const at = [ep(1, 10, 4), ep(2, 10, 5), ep(3, 10, 6)];
    expect(hookGate(at, settings({ minHookRuns: 5 }))).toMatchObject({ failureRate: 0.5, reason: null });
    const over = [ep(1, 10, 4), ep(2, 10, 5), ep(3, 11, 7)];
    expect(hookGate(over, settings({ minHookRuns: 5 })).reason).toMatch(/^hook failure rate 0\.512 .* exceeds 0\.5$/);
  });

  it('names at most five endpoints above the threshold in the reason', () => {
    const many = Array.from({ length: 8 }, (_, i) => ep(i + 1, 20, 20));
    const reason = hookGate(many, settings()).reason!;
    expect(reason.match(/= 20\/20/g)).toHaveLength(5);
    expect(reason).toContain('8 above 0.5');
    expect(reason).toContain(' and 3 more) exceeds 0.5');
  });
});

describe('offeredTo', () => {
  const release = { id: '11111111-1111-4111-8111-111111111111', status: 'rolling', rings: [50, 100], currentRing: 0 };
  const ids = Array.from({ length: 200 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

  it('a rolling, paused, aborted or superseded release was offered to the endpoints under its current ring only', () => {
    const offered = ids.filter((id) => offeredTo(release, id));
    expect(offered.length).toBeGreaterThan(60);
    expect(offered.length).toBeLessThan(140);
    for (const status of ['paused', 'aborted', 'superseded']) {
      expect(ids.filter((id) => offeredTo({ ...release, status }, id))).toEqual(offered);
    }
    expect(ids.every((id) => offeredTo({ ...release, currentRing: 1 }, id))).toBe(true);
  });

  it('a completed release was offered to the whole group', () => {
    expect(ids.every((id) => offeredTo({ ...release, status: 'completed' }, id))).toBe(true);
  });
});

describe('what a status report proves was served', () => {
  const digest = (n: number) => `sha256:${String(n).repeat(64)}`;
  const completed = { id: '22222222-2222-4222-8222-222222222222', status: 'completed', rings: [100], currentRing: 0 };
  const rolling = { id: '33333333-3333-4333-8333-333333333333', status: 'rolling', rings: [50, 100], currentRing: 0 };
  const releases = [
    { ...completed, revision: 1, digest: digest(1) },
    { ...rolling, revision: 2, digest: digest(2) },
  ];

  it('names the revision a report is about (served) and the layer on disk (applied), minus what is recorded', () => {
    const applied = { state: 'applied' as const, appliedRevision: 2, appliedDigest: digest(2), targetRevision: 2 };
    expect([...reportedRevisions(applied, new Map())]).toEqual([[2, true]]);
    expect([...reportedRevisions(applied, new Map([[2, false]]))]).toEqual([[2, true]]);
    expect([...reportedRevisions(applied, new Map([[2, true]]))]).toEqual([]);
    const failed = { state: 'failed' as const, appliedRevision: 1, appliedDigest: digest(1), targetRevision: 2 };
    expect([...reportedRevisions(failed, new Map())]).toEqual([
      [2, false],
      [1, true],
    ]);
    expect([...reportedRevisions(failed, new Map([[2, false]]))]).toEqual([[1, true]]);
    const none = { state: 'failed' as const, appliedRevision: null, appliedDigest: null, targetRevision: null };
    expect(reportedRevisions(none, new Map()).size).toBe(0);
  });

  it('keeps only releases the rollout offered the endpoint, applied only with the release digest', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const inside = ids.find((id) => offeredTo(rolling, id))!;
    const outside = ids.find((id) => !offeredTo(rolling, id))!;
    const claims = new Map([
      [1, true],
      [2, true],
      [7, true],
    ]);
    expect(servedByReport(claims, digest(2), releases, inside)).toEqual([
      { revision: 1, releaseId: completed.id, applied: false }, // the digest named is revision 2's
      { revision: 2, releaseId: rolling.id, applied: true },
    ]);
    expect(servedByReport(claims, digest(2), releases, outside)).toEqual([
      { revision: 1, releaseId: completed.id, applied: false },
    ]);
    expect(servedByReport(new Map([[2, false]]), null, releases, inside)).toEqual([
      { revision: 2, releaseId: rolling.id, applied: false },
    ]);
  });
});
