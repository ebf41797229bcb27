// Upload refusals that keep the agent's spool: backlog too deep in count or bytes (429 with Retry-After); and Redis
// unreachable, which refuses nothing: the upload is staged in PostgreSQL and the worker's drain stores it.
import { describe, expect, it } from 'vitest';
import { startTestApi } from '../support/api';
import pg from 'pg';
import { chainedLines, eventually } from '../support/audit-factories';
import { keyedEndpoints, type SignedAgent } from '../support/identity';
import { startTestWorker } from '../support/worker';
import { ownedRedis } from '../support/redis-server';

// Posts NDJSON lines signed by an endpoint (status and headers of the answer).
async function post(_baseUrl: string, ep: SignedAgent, lines: string[]) {
  return ep.call('POST', '/v1/agent/hook-runs', {
    body: lines.join('\n'),
    headers: { 'content-type': 'application/x-ndjson' },
  });
}

describe('ingest backpressure', () => {
  it('answers 429 with Retry-After once the ingest queue is deeper than the limit', async () => {
    const api = await startTestApi({ HOOK_RUN_INGEST_MAX_WAITING: '2' });
    try {
      const [ep] = await keyedEndpoints(api, 1);
      // No worker runs: batches stay waiting.
      expect((await post(api.baseUrl, ep!, chainedLines(2, 1).lines)).status).toBe(202);
      expect((await post(api.baseUrl, ep!, chainedLines(2, 3).lines)).status).toBe(202);
      await new Promise((r) => setTimeout(r, 600)); // the depth is sampled at most every 500 ms
      const res = await post(api.baseUrl, ep!, chainedLines(2, 5).lines);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = res.body as { error: { code: string } };
      expect(body.error.code).toBe('rate_limited');
    } finally {
      await api.close();
    }
  });

  it('answers 429 with Retry-After once the waiting uploads exceed the byte cap, whatever their count', async () => {
    const api = await startTestApi({ HOOK_RUN_INGEST_MAX_WAITING_BYTES: '20000' });
    try {
      const [ep] = await keyedEndpoints(api, 1);
      const big = chainedLines(12, 1, { stdout: 'x'.repeat(1500) });
      const res1 = await post(api.baseUrl, ep!, big.lines);
      expect(res1.status).toBe(202);
      await new Promise((r) => setTimeout(r, 600));
      const res2 = await post(api.baseUrl, ep!, chainedLines(12, 13, { stdout: 'y'.repeat(1500) }).lines);
      expect(res2.status).toBe(429);
      expect(Number(res2.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = res2.body as { error: { code: string; details: { waitingBytes: number } } };
      expect(body.error.code).toBe('rate_limited');
      expect(body.error.details.waitingBytes).toBeGreaterThan(15000);
    } finally {
      await api.close();
    }
  });

  it('accepts while Redis is down (staged in PostgreSQL); the drain stores it and re-sent copies land once', async () => {
    const redis = await ownedRedis({ persist: false });
    const api = await startTestApi({ REDIS_URL: redis.url, HOOK_RUN_DRAIN_INTERVAL_SEC: '1' });
    const worker = await startTestWorker(api.config);
    const db = new pg.Pool({ connectionString: api.db.url, max: 1 });
    try {
      const [ep] = await keyedEndpoints(api, 1);
      const first = chainedLines(5);
      expect((await post(api.baseUrl, ep!, first.lines)).status).toBe(202);
      await redis.stop();
      const second = chainedLines(5, 6, {}, first.lastHash);
      const accepted = await post(api.baseUrl, ep!, second.lines);
      expect(accepted.status).toBe(202);
      // A duplicate delivery (the agent did not see the answer) must not create rows.
      expect((await post(api.baseUrl, ep!, second.lines)).status).toBe(202);
      await redis.start();
      expect((await post(api.baseUrl, ep!, second.lines)).status).toBe(202);
      const count = async () =>
        (await db.query('SELECT count(*)::int AS n, count(DISTINCT seq)::int AS d FROM hook_runs')).rows[0] as {
          n: number;
          d: number;
        };
      await eventually(async () => (await count()).n === 10, 20_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(await count()).toEqual({ n: 10, d: 10 });
      const findings = await db.query('SELECT kind FROM hook_run_findings');
      expect(findings.rows).toEqual([]);
    } finally {
      await db.end();
      await worker.close();
      await api.close();
      await redis.stop();
    }
  }, 60_000);
});
