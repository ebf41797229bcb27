// One long poll per agent: a managed-layer request naming the shadow layer the agent holds (Hookwarden-Shadow) is
// answered with the shadow layer the endpoint should hold, at once when they differ, and a held one ends when the
// shadow layer changes (a shadow release made, aborted) as when the managed bundle does. Without the header, or with a
// value that is not an ETag or `none`, the route answers as before.
import { SHADOW_LAYER_HEADER } from '@hookwarden/hook-core';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollAgent, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

const HEADER = SHADOW_LAYER_HEADER;

let api: TestApi;
let worker: INestApplicationContext;

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, method, path, { token: api.adminToken, body });

// The long polls the API holds now (its /metrics).
async function heldPolls(): Promise<number> {
  const text = String((await admin('GET', '/metrics')).body);
  return Number(/^hookwarden_long_polls_held (\d+)/m.exec(text)?.[1]);
}

/** A group with one agent on a released version; its managed ETag, and a second version for shadow and managed. */
async function setup(): Promise<{ groupId: string; agent: SignedAgent; etag: string; next: string; third: string }> {
  const { groupId, policyId } = await createGroupWithPolicy(api);
  const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'one-poll' })).body.secret;
  const agent = await enrollAgent(api.baseUrl, secret, { machineId: `machine-one-poll-${groupId}`, hostname: 'h1' });
  const v1 = await createVersion(api, policyId, requirementsToml('/opt/hw-one-poll', 'v1'), []);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
  const first = await agent.call('GET', '/v1/agent/bundle');
  expect(first.status).toBe(200);
  const v2 = await createVersion(api, policyId, requirementsToml('/opt/hw-one-poll', 'v2'), []);
  const v3 = await createVersion(api, policyId, requirementsToml('/opt/hw-one-poll', 'v3'), []);
  return { groupId, agent, etag: first.headers.get('etag')!, next: v2.versionId, third: v3.versionId };
}

// A shadow release of `versionId` reaching every endpoint of the group; its id and the shadow bundle's ETag.
async function shadowRelease(groupId: string, versionId: string, agent: SignedAgent) {
  const made = await admin('POST', `/v1/groups/${groupId}/releases`, {
    policyVersionId: versionId,
    strategy: 'shadow',
    rings: [100],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const shadow = await agent.call('GET', '/v1/agent/shadow-bundle');
  expect(shadow.status).toBe(200);
  return { id: made.body.id as string, etag: shadow.headers.get('etag')! };
}

describe('the managed poll names the shadow layer (Hookwarden-Shadow)', () => {
  it('answers with the shadow layer to hold, at once when it differs; without the header as before', async () => {
    const { groupId, agent, etag, next } = await setup();
    const plain = await agent.call('GET', '/v1/agent/bundle', { headers: { 'if-none-match': etag } });
    expect(plain.status).toBe(304);
    expect(plain.headers.get(HEADER)).toBeNull();
    const none = await agent.call('GET', '/v1/agent/bundle', { headers: { 'if-none-match': etag, [HEADER]: 'none' } });
    expect(none.status).toBe(304);
    expect(none.headers.get(HEADER)).toBe('none');
    for (const bad of ['sha256:unquoted', '"a", "b"', 'none, "x"']) {
      const ignored = await agent.call('GET', '/v1/agent/bundle', {
        headers: { 'if-none-match': etag, [HEADER]: bad },
      });
      expect(ignored.status).toBe(304);
      expect(ignored.headers.get(HEADER), bad).toBeNull();
    }

    const shadow = await shadowRelease(groupId, next, agent);
    // The agent holds no shadow layer: a long poll is answered at once, naming the one the shadow route serves.
    const told = await agent.call('GET', '/v1/agent/bundle', {
      headers: { 'if-none-match': etag, [HEADER]: 'none', prefer: 'wait=50' },
    });
    expect(told.status).toBe(304);
    expect(told.headers.get('etag')).toBe(etag);
    expect(told.headers.get(HEADER)).toBe(shadow.etag);
    // A full fetch names it too.
    const full = await agent.call('GET', '/v1/agent/bundle', { headers: { [HEADER]: shadow.etag } });
    expect(full.status).toBe(200);
    expect(full.headers.get(HEADER)).toBe(shadow.etag);
  });

  it('a held poll ends when the shadow layer changes, and when the managed bundle does', async () => {
    const { groupId, agent, etag, next, third } = await setup();
    const shadow = await shadowRelease(groupId, next, agent);
    // Held with both layers current; the shadow release is aborted meanwhile: answered with `none` (at its timeout it
    // would still name the shadow bundle).
    const held = agent.call('GET', '/v1/agent/bundle', {
      headers: { 'if-none-match': etag, [HEADER]: shadow.etag, prefer: 'wait=50' },
    });
    await waitFor(async () => (await heldPolls()) === 1, 10_000, 'the poll held');
    expect((await admin('POST', `/v1/releases/${shadow.id}/abort`)).status).toBe(200);
    const ended = await held;
    expect(ended.status).toBe(304);
    expect(ended.headers.get(HEADER)).toBe('none');

    // Held again; a managed release meanwhile: the new bundle (200), still naming no shadow layer.
    const again = agent.call('GET', '/v1/agent/bundle', {
      headers: { 'if-none-match': etag, [HEADER]: 'none', prefer: 'wait=50' },
    });
    await waitFor(async () => (await heldPolls()) === 1, 10_000, 'the poll held again');
    expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: third })).status).toBe(201);
    const released = await again;
    expect(released.status).toBe(200);
    expect(released.headers.get('etag')).not.toBe(etag);
    expect(released.headers.get(HEADER)).toBe('none');
  });
});
