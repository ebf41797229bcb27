// Issue 27: shadow releases through the real API — creation (rings, one live per group: a second one is refused with
// 409), the shadow bundle on the agents' wire (its own route, signed in the shadow context, bound to the group, only
// to reached rings, never on the enforced route), promotion (staged release of the same version; 428 without the
// preview acknowledgement; 409 while another rollout runs, nothing changed) and abort (204 at once to a holder),
// both audited with the shadow report's summary; auditors read but never promote or abort.
import { randomUUID } from 'node:crypto';
import { BundleRejected, verifyBundle, verifyShadowBundle } from '@hookwarden/hook-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../../apps/api/src/releases/rollout';
import { startTestApi, type TestApi } from '../support/api';
import {
  auditorToken,
  createEndpoints,
  ingestRecords,
  shadowDeniedEvent,
  type TestEndpoint,
} from '../support/audit-factories';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const MANAGED = '/opt/hw-shadow-api';
const FILES = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n' }];
let api: TestApi;
let auditor: string;
let trusted: Array<{ kid: string; publicKeyPem: string }>;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });
const asAuditor = (method: string, p: string, body?: unknown) => call(api.baseUrl, method, p, { token: auditor, body });
// An agent's request with its (legacy bearer) credential.
const agentGet = (ep: TestEndpoint, p: string, headers: Record<string, string> = {}) =>
  call(api.baseUrl, 'GET', p, { token: ep.credential, headers });

/** A group with a policy, two versions and `n` endpoints. */
async function fixture(n = 2) {
  const { groupId, policyId } = await createGroupWithPolicy(api);
  const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v1'), FILES);
  const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v2'), FILES);
  const endpoints = await createEndpoints(api.db.url, n, groupId);
  return { groupId, policyId, v1, v2, endpoints };
}

// The audit entries of an action on a release.
async function audited(action: string, releaseId: string): Promise<any[]> {
  const r = await admin('GET', `/v1/audit-log?action=${action}&targetId=${releaseId}`);
  expect(r.status).toBe(200);
  return r.body.items;
}

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  trusted = (await admin('GET', '/v1/signing-keys/trusted')).body.keys;
}, 120_000);
afterAll(async () => {
  await api?.close();
});

describe('creating a shadow release', () => {
  it('delivers the shadow form of the version on its own route, signed for the shadow layer only', async () => {
    const { groupId, v1, v2, endpoints } = await fixture();
    const enforced = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    expect(enforced.status).toBe(201);
    const before = await agentGet(endpoints[0]!, '/v1/agent/bundle');
    expect(before.status).toBe(200);

    const created = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'shadow',
      rings: [100],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ strategy: 'shadow', status: 'completed', rings: [100], revision: 2 });

    // The enforced bundle is the same (same ETag, same body): a shadow release changes nothing enforced.
    const after = await agentGet(endpoints[0]!, '/v1/agent/bundle');
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(after.body).toEqual(before.body);

    const shadow = await agentGet(endpoints[0]!, '/v1/agent/shadow-bundle');
    expect(shadow.status).toBe(200);
    expect(shadow.headers.get('etag')).toBe(`"${created.body.digest}"`);
    expect(shadow.body).toMatchObject({ releaseId: created.body.id, revision: 2 });
    const v = verifyShadowBundle(shadow.body, trusted, 'linux');
    expect(v.shadowReleaseId).toBe(created.body.id);
    expect(created.body.shadowBudgetMs).toBeNull(); // the engine's default
    expect(v.manifest.shadow).toEqual({ releaseId: created.body.id });
    expect(v.manifest.group.id).toBe(groupId);
    expect(v.managedDir).toBe('/etc/zerotwo/shadow/managed');
    expect(v.requirements.toString()).toContain('/etc/zerotwo/shadow/managed/check.sh v2');
    expect(v.requirements.toString()).not.toContain(MANAGED);
    // Never valid as the managed layer.
    expect(() => verifyBundle(shadow.body, trusted, null, null, 'linux')).toThrow(BundleRejected);
    // Revalidation and the endpoint's status view.
    const same = await agentGet(endpoints[0]!, '/v1/agent/shadow-bundle', { 'if-none-match': `"${v.digest}"` });
    expect(same.status).toBe(304);
  });

  it('signs the budget a shadow release was given into its bundle', async () => {
    const { groupId, v1, endpoints } = await fixture(1);
    const created = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      rings: [100],
      shadowBudgetMs: 1500,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.shadowBudgetMs).toBe(1500);
    expect((await admin('GET', `/v1/releases/${created.body.id}`)).body.shadowBudgetMs).toBe(1500);
    const shadow = await agentGet(endpoints[0]!, '/v1/agent/shadow-bundle');
    const v = verifyShadowBundle(shadow.body, trusted, 'linux');
    expect(v.manifest.shadow).toEqual({ releaseId: created.body.id, budgetMs: 1500 });
  });

  it('refuses a second live shadow release of the group with 409; another group is independent', async () => {
    const { groupId, v1, v2 } = await fixture(0);
    const first = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'rolling', rings: [1, 5, 25, 100] });
    const second = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'shadow',
    });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(`Shadow release ${first.body.id} is live in this group`);
    expect(second.body.error.message).toMatch(/promote or abort it first/);
    // Enforced releases go on beside it.
    expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
    const other = await fixture(0);
    expect(
      (
        await admin('POST', `/v1/groups/${other.groupId}/releases`, {
          policyVersionId: other.v1.versionId,
          strategy: 'shadow',
        })
      ).status,
    ).toBe(201);
    // Once it is aborted, a new shadow release may start.
    expect((await admin('POST', `/v1/releases/${first.body.id}/abort`)).status).toBe(200);
    expect(
      (await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v2.versionId, strategy: 'shadow' }))
        .status,
    ).toBe(201);
  });

  it('answers 400 for gates or a preview acknowledgement on a shadow release, 404 for an unknown version', async () => {
    const { groupId, v1 } = await fixture(0);
    const gated = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      maxApplyFailureRate: 0.1,
      previewAck: `sha256:${'0'.repeat(64)}`,
    });
    expect(gated.status).toBe(400);
    const paths = (gated.body.error.details as Array<{ path: string }>).map((d) => d.path).sort();
    expect(paths).toEqual(['$.maxApplyFailureRate', '$.previewAck']);
    const bad = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      rings: [50, 40],
    });
    expect(bad.status).toBe(400);
    const unknown = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: randomUUID(),
      strategy: 'shadow',
    });
    expect(unknown.status).toBe(404);
    // A budget belongs to a shadow release only, within 0-5000 ms.
    for (const [body, message] of [
      [{ strategy: 'staged', shadowBudgetMs: 500 }, /only a shadow release has a budget/],
      [{ strategy: 'shadow', shadowBudgetMs: 5001 }, /5000/],
      [{ strategy: 'shadow', shadowBudgetMs: 1.5 }, /int/i],
    ] as const) {
      const r = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId, ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.details).toEqual([expect.objectContaining({ path: '$.shadowBudgetMs' })]);
      expect(JSON.stringify(r.body.error.details)).toMatch(message);
    }
    // Nothing was created by the refusals.
    expect((await admin('GET', `/v1/groups/${groupId}/releases`)).body.items).toEqual([]);
  });

  it('offers the shadow layer only to the reached rings; the enforced route never serves it', async () => {
    const { groupId, v1, endpoints } = await fixture(8);
    const created = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      rings: [50, 100],
      ringIntervalSec: 3600,
    });
    expect(created.status).toBe(201);
    for (const ep of endpoints) {
      const r = await agentGet(ep, '/v1/agent/shadow-bundle');
      expect(r.status, ep.id).toBe(bucketOf(ep.id, created.body.id) < 50 ? 200 : 204);
      // No enforced release in this group: the enforced route has nothing for it.
      expect((await agentGet(ep, '/v1/agent/bundle')).status).toBe(204);
    }
    const rollout = await admin('GET', `/v1/releases/${created.body.id}/rollout`);
    expect(rollout.status).toBe(200);
    const inFirst = endpoints.filter((ep) => bucketOf(ep.id, created.body.id) < 50).length;
    const assigned = rollout.body.rings.map((r: any) => r.versions.reduce((n: number, v: any) => n + v.assigned, 0));
    expect(assigned).toEqual([inFirst, 0]);
    // Advancing opens the last ring: every endpoint gets the shadow layer.
    expect((await admin('POST', `/v1/releases/${created.body.id}/advance`)).body.status).toBe('completed');
    for (const ep of endpoints) expect((await agentGet(ep, '/v1/agent/shadow-bundle')).status).toBe(200);
  });
});

describe('status reports about the shadow layer', () => {
  it('records the shadow release an agent reports on disk (only a shadow release of its group, with its digest)', async () => {
    const { groupId, v1, endpoints } = await fixture(1);
    const ep = endpoints[0]!;
    const created = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      rings: [100],
    });
    const report = (shadow: unknown) =>
      call(api.baseUrl, 'POST', '/v1/agent/status', {
        token: ep.credential,
        body: { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: null, shadow },
      });
    const ok = await report({ releaseId: created.body.id, revision: 1, digest: created.body.digest, error: null });
    expect(ok.status).toBe(200);
    expect((await admin('GET', `/v1/endpoints/${ep.id}`)).body.shadow).toEqual({
      releaseId: created.body.id,
      revision: 1,
      error: null,
    });
    // A claim with another digest (or of a release that is not this group's shadow) is not recorded as applied.
    await report({ releaseId: created.body.id, revision: 1, digest: `sha256:${'1'.repeat(64)}`, error: 'refused x' });
    expect((await admin('GET', `/v1/endpoints/${ep.id}`)).body.shadow).toEqual({
      releaseId: null,
      revision: null,
      error: 'refused x',
    });
    const rollout = (await admin('GET', `/v1/releases/${created.body.id}/rollout`)).body;
    expect(rollout.rings[0].versions[0]).toMatchObject({ assigned: 1, applied: 0, failed: 1 });
    const bad = await report({ releaseId: 'not-a-uuid', revision: 1, digest: null, error: null });
    expect(bad.status).toBe(400);
  });
});

describe('promote and abort', () => {
  it('promote: 428 without the acknowledgement the preview requires, then a staged release of the same version', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    // allow_managed_hooks_only to endpoints without an inventory: the preview requires an acknowledgement.
    const strict = await createVersion(
      api,
      policyId,
      `allow_managed_hooks_only = true\n\n${requirementsToml(MANAGED, 'strict')}`,
      FILES,
    );
    const [ep] = await createEndpoints(api.db.url, 1, groupId);
    // Creating the shadow release needs no acknowledgement.
    const shadow = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: strict.versionId,
      strategy: 'shadow',
      rings: [100],
      ringIntervalSec: 120,
    });
    expect(shadow.status).toBe(201);
    await ingestRecords(api, ep!, [...shadowDeniedEvent(1, shadow.body.id), ...shadowDeniedEvent(3, shadow.body.id)]);

    expect((await asAuditor('POST', `/v1/releases/${shadow.body.id}/promote`)).status).toBe(403);
    expect((await asAuditor('POST', `/v1/releases/${shadow.body.id}/abort`)).status).toBe(403);
    expect((await asAuditor('GET', `/v1/releases/${shadow.body.id}/shadow-report`)).status).toBe(200);

    const refused = await admin('POST', `/v1/releases/${shadow.body.id}/promote`);
    expect(refused.status).toBe(428);
    expect(refused.body.error.message).toMatch(/previewAck/);
    expect((await admin('GET', `/v1/releases/${shadow.body.id}`)).body.status).toBe('completed');
    const preview = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${strict.versionId}`);
    const badRings = await admin('POST', `/v1/releases/${shadow.body.id}/promote`, { rings: [10, 5] });
    expect(badRings.status).toBe(400);

    const promoted = await admin('POST', `/v1/releases/${shadow.body.id}/promote`, {
      previewAck: preview.body.digest,
      rings: [50, 100],
      maxApplyFailureRate: 0.2,
    });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.shadow).toMatchObject({ status: 'promoted', promotedReleaseId: promoted.body.release.id });
    expect(promoted.body.release).toMatchObject({
      strategy: 'staged',
      status: 'rolling',
      policyVersionId: strict.versionId,
      rings: [50, 100],
      ringIntervalSec: 120,
      maxApplyFailureRate: 0.2,
      promotedFromId: shadow.body.id,
      revision: 2,
    });
    // The shadow layer is gone from the wire; the enforced bundle is the promoted version's.
    expect((await agentGet(ep!, '/v1/agent/shadow-bundle')).status).toBe(204);
    const [entry] = await audited('release.promote', shadow.body.id);
    expect(entry.details).toEqual({
      groupId,
      revision: 1,
      promotedReleaseId: promoted.body.release.id,
      promotedRevision: 2,
      rings: [50, 100],
      shadowReport: {
        events: 2,
        shadowRuns: 2,
        wouldNewlyDeny: 2,
        wouldStopDenying: 0,
        rewrites: 0,
        errors: 0,
        timeouts: 0,
      },
    });
    // Once promoted it can be neither promoted nor aborted again; the staged release is not a shadow release.
    expect((await admin('POST', `/v1/releases/${shadow.body.id}/promote`)).status).toBe(409);
    expect((await admin('POST', `/v1/releases/${shadow.body.id}/abort`)).status).toBe(409);
    const notShadow = await admin('POST', `/v1/releases/${promoted.body.release.id}/promote`);
    expect(notShadow.status).toBe(409);
    expect(notShadow.body.error.message).toMatch(/only a shadow release can be promoted/);
    expect((await admin('POST', `/v1/releases/${randomUUID()}/promote`)).status).toBe(404);
  });

  it('promote while another enforced rollout is in progress: 409, and the shadow release stays live', async () => {
    const { groupId, v1, v2 } = await fixture(0);
    const staged = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'staged',
      rings: [50, 100],
    });
    expect(staged.status).toBe(201);
    const shadow = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'shadow',
    });
    expect(shadow.status).toBe(201);
    const refused = await admin('POST', `/v1/releases/${shadow.body.id}/promote`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(`Release ${staged.body.id} is still rolling out`);
    expect((await admin('GET', `/v1/releases/${shadow.body.id}`)).body).toMatchObject({
      status: 'rolling',
      promotedReleaseId: null,
    });
    expect(await audited('release.promote', shadow.body.id)).toEqual([]);
    // The shadow release's own ring controls work, without any gate.
    expect((await admin('POST', `/v1/releases/${shadow.body.id}/pause`, { reason: 'look first' })).body.status).toBe(
      'paused',
    );
  });

  it('abort: the shadow layer goes (204 at once to an agent holding it), audited with the report summary', async () => {
    const { groupId, v1, endpoints } = await fixture(1);
    const ep = endpoints[0]!;
    const shadow = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'shadow',
      rings: [100],
    });
    await ingestRecords(api, ep, shadowDeniedEvent(1, shadow.body.id));
    const held = agentGet(ep, '/v1/agent/shadow-bundle', {
      'if-none-match': `"${shadow.body.digest}"`,
      prefer: 'wait=30',
    });
    const aborted = await admin('POST', `/v1/releases/${shadow.body.id}/abort`);
    expect(aborted.status).toBe(200);
    expect(aborted.body).toMatchObject({ release: { status: 'aborted' }, rollback: null });
    const answer = await held;
    expect(answer.status).toBe(204);
    expect(answer.headers.get('preference-applied')).toBe('wait=30');
    // Asked again with the aborted digest: 204 at once, not held.
    expect(
      (
        await agentGet(ep, '/v1/agent/shadow-bundle', { 'if-none-match': `"${shadow.body.digest}"`, prefer: 'wait=30' })
      ).headers.get('preference-applied'),
    ).toBeNull();
    const [entry] = await audited('release.shadow_abort', shadow.body.id);
    expect(entry.details).toEqual({
      groupId,
      revision: 1,
      shadowReport: {
        events: 1,
        shadowRuns: 1,
        wouldNewlyDeny: 1,
        wouldStopDenying: 0,
        rewrites: 0,
        errors: 0,
        timeouts: 0,
      },
    });
    expect(await audited('release.abort', shadow.body.id)).toEqual([]);
    expect((await admin('POST', `/v1/releases/${shadow.body.id}/abort`)).status).toBe(409);
  });
});
