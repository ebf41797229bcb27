// GET /metrics against the real API, worker, PostgreSQL and Redis: who may read it and what it reports.
import { gzipSync } from 'node:zlib';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokensService } from '../../apps/api/src/tokens/tokens.service';
import { startTestApi, type TestApi } from '../support/api';
import { chainedLines, createEndpoints, eventually, type TestEndpoint } from '../support/audit-factories';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: INestApplicationContext;
let metricsToken: string;
let endpoints: TestEndpoint[];

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
  metricsToken = (
    await api.app
      .get(TokensService)
      .create({ name: 'prometheus', role: 'metrics' }, { actorId: null, actorName: 'test', role: 'admin' })
  ).token;
  endpoints = await createEndpoints(api.db.url, 3);
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
});

// Scrapes /metrics with the metrics token; returns the exposition text.
async function scrape(): Promise<string> {
  const res = await call(api.baseUrl, 'GET', '/metrics', { token: metricsToken });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body as string;
}

// The value of one sample (`name{labels}`) in an exposition, or undefined.
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('needs a metrics, auditor or admin token; a metrics token opens nothing else', async () => {
    expect((await call(api.baseUrl, 'GET', '/metrics')).status).toBe(401);
    expect((await call(api.baseUrl, 'GET', '/metrics', { token: endpoints[0]!.credential })).status).toBe(403);
    expect((await call(api.baseUrl, 'GET', '/metrics', { token: api.adminToken })).status).toBe(200);
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: metricsToken })).status).toBe(403);
    expect((await call(api.baseUrl, 'GET', '/v1/hook-runs', { token: metricsToken })).status).toBe(403);
    await scrape();
  });

  it('counts HTTP requests and latency by route template and status, and authentication failures', async () => {
    const before = await scrape();
    const series = 'hookwarden_http_requests_total{method="GET",route="/v1/groups/:id",status="404"}';
    const failures = sample(before, 'hookwarden_auth_failures_total') ?? 0;
    for (const id of ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'])
      expect((await call(api.baseUrl, 'GET', `/v1/groups/${id}`, { token: api.adminToken })).status).toBe(404);
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: 'hwt_wrong' })).status).toBe(401);
    const after = await scrape();
    expect((sample(after, series) ?? 0) - (sample(before, series) ?? 0)).toBe(2);
    expect(
      sample(after, 'hookwarden_http_request_duration_seconds_count{method="GET",route="/v1/groups/:id",status="404"}'),
    ).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'hookwarden_auth_failures_total')).toBe(failures + 1);
    expect(after).toContain('# TYPE hookwarden_auth_limiter_blocks_total counter');
  });

  it('reports endpoints by state and applied revision, stale endpoints, long polls, releases and the ingest queue', async () => {
    const text = await scrape();
    expect(sample(text, 'hookwarden_endpoints{state="pending"}')).toBe(3);
    expect(
      sample(text, `hookwarden_endpoints_applied_revision{group_id="${endpoints[0]!.groupId}",revision="none"}`),
    ).toBe(3);
    expect(sample(text, 'hookwarden_endpoints_stale')).toBe(0);
    expect(sample(text, 'hookwarden_long_polls_held')).toBe(0);
    expect(sample(text, 'hookwarden_ingest_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE hookwarden_releases gauge');
    expect(text).toContain('# TYPE hookwarden_findings_open gauge');
  });

  it('counts the rows the worker ingested (fleet-wide, through Redis)', async () => {
    const e = endpoints[1]!;
    const before = sample(await scrape(), 'hookwarden_hook_runs_ingested_total') ?? 0;
    const res = await fetch(`${api.baseUrl}/v1/agent/hook-runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${e.credential}`,
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
      },
      body: gzipSync(Buffer.from(chainedLines(4).lines.join('\n') + '\n')),
    });
    expect(res.status).toBe(202);
    await eventually(async () => (sample(await scrape(), 'hookwarden_hook_runs_ingested_total') ?? 0) === before + 4);
    expect(sample(await scrape(), 'hookwarden_hook_run_batches_ingested_total')).toBeGreaterThanOrEqual(1);
  });
});
