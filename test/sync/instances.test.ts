// Two API instances on one database and Redis: credential changes made on one take effect on the other at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleCacheService } from '../../apps/api/src/agent/bundle-cache.service';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/audit-factories';
import { call } from '../support/http';
import { enrollWithKey, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy } from '../support/sync-factories';

let a: TestApi;
let b: TestApi;

beforeAll(async () => {
  a = await startTestApi();
  b = await startTestApi({}, { sameAs: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

// Enrolls a machine through instance A (re-enrolls with the proof of `previous`'s key).
async function enroll(secret: string, machineId: string, previous?: SignedAgent) {
  const { res, agent } = await enrollWithKey(a.baseUrl, secret, {
    machineId,
    hostname: 'host',
    ...(previous ? { previous: { endpointId: previous.endpointId, key: previous.key } } : {}),
  });
  expect(res.status).toBe(201);
  return { ...(res.body as { endpointId: string; reenrolled: boolean }), agent: agent! };
}

const bundleOn = (api: TestApi, agent: SignedAgent, headers: Record<string, string> = {}) =>
  agent.call('GET', '/v1/agent/bundle', { headers, baseUrl: api.baseUrl });

// Within one second (the agent credential cache lasts 30 s, so only the broadcast makes it this fast).
const atOnce = (check: () => Promise<boolean>) => eventually(check, 1000);

describe('credential changes across API instances', () => {
  it("re-enrollment (re-key) on one instance makes the old key's session fail on the other at once", async () => {
    const { groupId } = await createGroupWithPolicy(a);
    const secret = (
      await call(a.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
        token: a.adminToken,
        body: { name: 'two-instances' },
      })
    ).body.secret;
    const first = await enroll(secret, 'machine-two-instances-1');
    // B authenticates (and caches) the first credential, and holds a long poll made with it.
    expect((await bundleOn(b, first.agent)).status).toBe(204);
    const held = bundleOn(b, first.agent, { prefer: 'wait=30' });
    await new Promise((r) => setTimeout(r, 300));

    const second = await enroll(secret, 'machine-two-instances-1', first.agent);
    expect(second).toMatchObject({ endpointId: first.endpointId, reenrolled: true });
    await atOnce(async () => (await bundleOn(b, first.agent)).status === 401);
    const ended = await held;
    // 401 is the re-enrollment's answer (the 30 s wait would have ended in 204).
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe('unauthorized');
    expect((await first.agent.call('POST', '/v1/agent/status', { body: {}, baseUrl: b.baseUrl })).status).toBe(401);

    // The new credential works on both.
    expect((await bundleOn(b, second.agent)).status).toBe(204);
    expect((await bundleOn(a, second.agent)).status).toBe(204);

    // A revocation on A (the same broadcast) ends the new credential on B at once too.
    const revoked = await call(a.baseUrl, 'POST', `/v1/endpoints/${first.endpointId}/revoke`, { token: a.adminToken });
    expect(revoked.status).toBe(200);
    await atOnce(async () => (await bundleOn(b, second.agent)).status === 401);
  });

  it('a rotation notice re-checks held requests: a still-valid credential is not answered 401', async () => {
    const { groupId } = await createGroupWithPolicy(a);
    const secret = (
      await call(a.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
        token: a.adminToken,
        body: { name: 'recheck' },
      })
    ).body.secret;
    const ep = await enroll(secret, 'machine-two-instances-2');
    // A notice that arrives after the new credential's request was held (a race on a real rotation) must not end
    // that request with 401: it authenticates again and answers as usual (nothing released: 204).
    const held = bundleOn(b, ep.agent, { prefer: 'wait=30' });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    b.app.get(BundleCacheService).onCredentialRotated(ep.endpointId);
    const ended = await held;
    // Answered by the re-check, well before the 30 s wait would have ended it (the same 204 either way).
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(ended.status).toBe(204);
    expect((await bundleOn(b, ep.agent)).status).toBe(204);
  });
});
