// Upload refusals that keep the agent's spool: queue too deep (429) and Redis unreachable (503), both with Retry-After.
import { describe, expect, it } from 'vitest';
import { startTestApi } from '../support/api';
import { chainedLines, createEndpoints } from '../support/audit-factories';

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

  it('answers 503 with Retry-After when Redis is unreachable', async () => {
    const api = await startTestApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const [ep] = await createEndpoints(api.db.url, 1);
      const res = await post(api.baseUrl, ep!.credential, chainedLines(3).lines);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await api.close();
    }
  });
});
