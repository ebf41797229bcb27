// Issue 27 §2: stored shadow runs — ingest keeps their shadow release id (filterable), and they stay out of what
// counts decisions (hourly rollup, stats, top blocking hooks): observe mode decides nothing.
import { canonicalJson, type RunRecord } from '@hookwarden/hook-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { IngestRepository } from '../../apps/api/src/ingest/ingest.repository';
import { ReleasesRepository } from '../../apps/api/src/releases/releases.repository';
import { buildShadowReport } from '../../apps/api/src/releases/shadow-report';
import { parseUpload } from '../../apps/api/src/ingest/ingest.parse';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, runRecord, type TestEndpoint } from '../support/audit-factories';
import { call } from '../support/http';

let api: TestApi;
let auditor: string;
let ep: TestEndpoint;
const base = Date.parse('2026-11-20T12:00:00.000Z');

/** A shadow run of `releaseId` that would have denied (revision null, as the engine writes them). */
function shadowRun(seq: number, releaseId: string | null, dispatchId?: string): RunRecord {
  const r = runRecord({ seq, startedAt: new Date(base + seq * 60_000), decision: 'deny' });
  return {
    ...r,
    dispatchId: dispatchId ?? r.dispatchId,
    effect: 'deny',
    hook: { ...r.hook, key: '/etc/zerotwo/shadow/requirements.toml:pre_tool_use:0:0' },
    policy: { revision: null, digest: r.policy.digest },
    shadow: { releaseId, version: '2', wouldHave: 'deny', killedAtBudget: false },
  };
}

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  ep = (await createEndpoints(api.db.url, 1))[0]!;
  // Two events: the first allowed by the enforced hook (the shadow one would deny), the second denied by both.
  const first = runRecord({ seq: 1, startedAt: new Date(base + 60_000), decision: 'allow' });
  const second = { ...runRecord({ seq: 3, startedAt: new Date(base + 180_000), decision: 'deny' }), effect: 'deny' };
  const records = [
    first,
    shadowRun(2, 'rel-s', first.dispatchId),
    second,
    shadowRun(4, 'rel-s', second.dispatchId),
    shadowRun(5, null),
  ];
  await api.app.get(IngestRepository).ingestBatch({
    endpointId: ep.id,
    groupId: ep.groupId,
    receivedAt: new Date().toISOString(),
    droppedTotal: null,
    rows: parseUpload({ kind: 'ndjson', text: records.map((r) => canonicalJson(r)).join('\n') }, records.length),
  });
});

afterAll(async () => {
  await api?.close();
});

const get = (path: string) => call(api.baseUrl, 'GET', path, { token: auditor });

describe('stored shadow runs', () => {
  it('keeps the shadow release id; the filter selects a release, the listing shows every run', async () => {
    const all = await get(`/v1/hook-runs?endpointId=${ep.id}`);
    expect(all.status).toBe(200);
    const ids = (all.body as { items: Array<{ shadowReleaseId: string | null }> }).items.map((r) => r.shadowReleaseId);
    expect(ids.sort()).toEqual(['', 'rel-s', 'rel-s', null, null].sort());
    const one = await get(`/v1/hook-runs?shadowReleaseId=rel-s`);
    expect((one.body as { items: unknown[] }).items).toHaveLength(2);
  });

  it('stats and top count enforced runs only, unless a shadow release is asked for', async () => {
    const from = new Date(base).toISOString();
    const to = new Date(base + 3_600_000 * 2).toISOString();
    type Stats = { buckets: Array<{ byDecision: Record<string, number> }> };
    const sum = (b: Stats, decision: string): number =>
      b.buckets.reduce((n, x) => n + (x.byDecision[decision] ?? 0), 0);
    const stats = await get(`/v1/hook-runs/stats?groupId=${ep.groupId}&from=${from}&to=${to}`);
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(sum(stats.body as Stats, 'deny')).toBe(1);
    const shadowStats = await get(
      `/v1/hook-runs/stats?groupId=${ep.groupId}&shadowReleaseId=rel-s&from=${from}&to=${to}`,
    );
    expect(sum(shadowStats.body as Stats, 'deny')).toBe(2);
    const top = await get(`/v1/hook-runs/top?kind=blocking&groupId=${ep.groupId}&from=${from}&to=${to}`);
    expect(top.status).toBe(200);
    const rows = (top.body as { items: Array<{ hookKey: string; count: number }> }).items;
    expect(rows.map((r) => r.hookKey)).toEqual(['/etc/zerotwo/requirements.toml:pre_tool_use:0:0']);
  });
});

describe('shadow report over stored runs', () => {
  it('pairs shadow runs with the enforced runs of the same events (real PostgreSQL)', async () => {
    const runs = await api.app.get(ReleasesRepository).shadowReportRuns('rel-s');
    expect(runs).toHaveLength(4);
    const report = buildShadowReport('rel-s', runs);
    expect(report.events).toBe(2);
    expect(report.totals).toEqual({ wouldNewlyDeny: 1, wouldStopDenying: 0, rewrites: 0, errors: 0, timeouts: 0 });
    expect(report.samples[0]!.enforcedRunIds).toHaveLength(1);
  });

  it('answers 404 for a release that does not exist', async () => {
    const r = await get(`/v1/releases/${randomUUID()}/shadow-report`);
    expect(r.status).toBe(404);
  });
});
