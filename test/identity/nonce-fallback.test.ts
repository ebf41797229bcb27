// The nonce store without Redis: signed requests keep working and a replay on the same instance is still refused
// (the in-memory LRU stands in), over real HTTP against a real API whose own Redis is stopped.
import { expect, it } from 'vitest';
import { startTestApi } from '../support/api';
import { keyedEndpoints } from '../support/identity';
import { ownedRedis } from '../support/redis-server';

it('accepts signed requests and refuses same-instance replays while Redis is down', async () => {
  const redis = await ownedRedis();
  const api = await startTestApi({ REDIS_URL: redis.url, AUTH_FAILURE_LIMIT: '1000' });
  try {
    const [ep] = await keyedEndpoints(api, 1);
    // A session first (its nonce goes through Redis while it is up), then Redis goes away.
    expect((await ep!.openSession()).status).toBe(200);
    await redis.stop();
    const body = { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: null };
    const nonce = 'fallback-nonce-0001';
    const first = await ep!.call('POST', '/v1/agent/status', { body, nonce });
    expect(first.status).toBe(200);
    const replay = await ep!.call('POST', '/v1/agent/status', { body, nonce });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('replayed_request');
    expect((await ep!.call('POST', '/v1/agent/status', { body })).status).toBe(200);
  } finally {
    await api.close();
    await redis.stop();
  }
});
