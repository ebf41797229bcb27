// Upload refusals that keep the agent's spool: queue too deep (429) and Redis unreachable (503), both with Retry-After.
import { describe, expect, it } from 'vitest';
import { startTestApi } from '../support/api';
import pg from 'pg';
import { chainedLines, createEndpoints, eventually } from '../support/audit-factories';
import { startTestWorker } from '../support/worker';
import { ownedRedis } from '../support/redis-server';

// Posts NDJSON lines with an endpoint credential.
async function post(baseUrl: string, credential: string, lines: string[]): Promise<Response> {
  return fetch(`${baseUrl}/v1/agent/hook-runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/x-ndjson' },
    body: lines.join('\n'),
  });
}

describe('ingest backpressure', () => {
  it('answers 429 with Retry-After once the ingest queue is deeper than the limit', async () => {
    const api = await startTestApi({ HOOK_RUN_INGEST_MAX_WAITING: '2' });
    try {
      const [ep] = await createEndpoints(api.db.url, 1);
      // No worker runs: batches stay waiting.
      expect((await post(api.baseUrl, ep!.credential, chainedLines(2, 1).lines)).status).toBe(202);
      expect((await post(api.baseUrl, ep!.credential, chainedLines(2, 3).lines)).status).toBe(202);
      await new Promise((r) => setTimeout(r, 600)); // the depth is sampled at most every 500 ms
      const res = await post(api.baseUrl, ep!.credential, chainedLines(2, 5).lines);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('rate_limited');
    } finally {
      await api.close();
    }
  });

  it('answers 503 with Retry-After while Redis is down; after it returns the retried batch lands exactly once', async () => {
    const redis = await ownedRedis();
    const api = await startTestApi({ REDIS_URL: redis.url });
    const worker = await startTestWorker(api.config);
    const db = new pg.Pool({ connectionString: api.db.url, max: 1 });
    try {
      const [ep] = await createEndpoints(api.db.url, 1);
      const first = chainedLines(5);
      expect((await post(api.baseUrl, ep!.credential, first.lines)).status).toBe(202);
      await redis.stop();
      const second = chainedLines(5, 6, {}, first.lastHash);
      const refused = await post(api.baseUrl, ep!.credential, second.lines);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await redis.start();
      // The agent kept the batch and retries it (twice here: a duplicate must not create rows).
      const retried = await eventually(async () => {
        const res = await post(api.baseUrl, ep!.credential, second.lines);
        return res.status === 202 ? res : null;
      }, 20_000);
      expect(retried.status).toBe(202);
      expect((await post(api.baseUrl, ep!.credential, second.lines)).status).toBe(202);
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
