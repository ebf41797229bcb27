// The documented details of every audit action: an end-to-end flow through the admin and agent routes, then every
// entry it stored parses against the schema the audit-log response documents for its action (details included, no
// key left undocumented), and the published document has one branch per action.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AUDIT_ACTION_NAMES, type AuditAction } from '../../apps/api/src/audit-log/audit-actions';
import { AUDIT_DETAILS } from '../../apps/api/src/audit-log/audit-details';
import { auditEntrySchema } from '../../apps/api/src/audit-log/audit-log.dto';
import { insertPendingDuplicate } from '../support/admission';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollWithKey } from '../support/identity';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '1000' });
});
afterAll(async () => {
  await api?.close();
});

// An admin call that must answer `status`.
async function admin(method: string, path: string, body?: unknown, status = [200, 201]) {
  const res = await call(api.baseUrl, method, path, { token: api.adminToken, ...(body === undefined ? {} : { body }) });
  expect(status, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
  return res.body;
}

// Every entry of the log through the API (keyset pages, newest first).
async function allEntries(): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await admin('GET', `/v1/audit-log?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

describe('audit entry details', () => {
  it('every entry an end-to-end flow stores parses against its action’s documented schema', async () => {
    const suffix = randomBytes(3).toString('hex');
    // Groups, capture settings, policies and versions.
    const g = await createGroupWithPolicy(api, `flow-${suffix}`);
    const other = await admin('POST', '/v1/groups', { name: `other-${suffix}` });
    await admin('PATCH', `/v1/groups/${other.id}`, { description: 'renamed' });
    const settings = await admin('GET', `/v1/groups/${g.groupId}/audit-settings`);
    await admin('PUT', `/v1/groups/${g.groupId}/audit-settings`, { ...settings, maxExcerptBytes: 1024 });
    await admin('PATCH', `/v1/policies/${g.policyId}`, { description: 'the flow policy' });
    const spare = await admin('POST', '/v1/policies', { name: `spare-${suffix}`, groupId: g.groupId });
    await admin('PATCH', `/v1/policies/${spare.id}`, { groupId: other.id });
    await admin('DELETE', `/v1/policies/${spare.id}`);
    await admin('DELETE', `/v1/groups/${other.id}`);
    const v1 = await createVersion(api, g.policyId, requirementsToml('/opt/hw-flow', 'v1'), []);
    const v2 = await createVersion(api, g.policyId, requirementsToml('/opt/hw-flow', 'v2'), []);

    // Releases: immediate, then staged (pause, resume, advance to completion), then staged and aborted, then shadow.
    await admin('POST', `/v1/groups/${g.groupId}/releases`, { policyVersionId: v1.versionId });
    const staged = await admin('POST', `/v1/groups/${g.groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'staged',
      rings: [50, 100],
    });
    await admin('POST', `/v1/releases/${staged.id}/pause`, { reason: 'looking' });
    await admin('POST', `/v1/releases/${staged.id}/resume`);
    await admin('POST', `/v1/releases/${staged.id}/advance`);
    const aborted = await admin('POST', `/v1/groups/${g.groupId}/releases`, {
      policyVersionId: v1.versionId,
      strategy: 'staged',
      rings: [50, 100],
    });
    await admin('POST', `/v1/releases/${aborted.id}/abort`);
    // Shadow releases: one aborted, one promoted to a staged release.
    const shadowed = await admin('POST', `/v1/groups/${g.groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'shadow',
    });
    await admin('POST', `/v1/releases/${shadowed.id}/abort`);
    const promoted = await admin('POST', `/v1/groups/${g.groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'shadow',
      rings: [100],
    });
    await admin('POST', `/v1/releases/${promoted.id}/promote`, { rings: [100] });

    // Enrollment, admission decisions, moves and revocations.
    const secret = await admin('POST', `/v1/groups/${g.groupId}/enrollment-secrets`, { name: 'flow', maxUses: 5 });
    const machineId = `flow-${suffix}-machine`;
    const first = await enrollWithKey(api.baseUrl, secret.secret, { machineId, hostname: 'flow-host' });
    expect(first.res.status).toBe(201);
    const endpointId = first.res.body.endpointId as string;
    const pending = await insertPendingDuplicate(api.db.url, endpointId);
    await admin('POST', `/v1/endpoints/${pending.id}/approve`);
    // The same machine id again without proof of the admitted key: pending approval, then rejected.
    const claim = await enrollWithKey(api.baseUrl, secret.secret, { machineId, hostname: 'flow-host' });
    expect(claim.res.status).toBe(202);
    await admin('POST', `/v1/endpoints/${claim.res.body.endpointId}/reject`);
    const second = await enrollWithKey(api.baseUrl, secret.secret, { hostname: 'flow-host-2' });
    expect(second.res.status).toBe(201);
    const secondId = second.res.body.endpointId as string;
    await admin('POST', `/v1/endpoints/${secondId}/move`, { groupId: (await defaultGroup()).id });
    await admin('POST', `/v1/endpoints/${secondId}/revoke`);
    await admin('POST', `/v1/endpoints/${secondId}/readmit`);
    await admin('POST', `/v1/enrollment-secrets/${secret.id}/revoke`);

    // Tokens, known-bad hashes, signing keys.
    const token = await admin('POST', '/v1/tokens', { name: `flow-${suffix}`, role: 'auditor' });
    await admin('DELETE', `/v1/tokens/${token.id}`);
    const hash = `sha256:${'ab'.repeat(32)}`;
    await admin('POST', '/v1/inventory/denied-hashes', { hash, reason: 'flow' });
    await admin('DELETE', `/v1/inventory/denied-hashes/${hash}`);
    const before = (await admin('GET', '/v1/signing-keys')).items.find((k: { activatedAt: string | null }) =>
      Boolean(k.activatedAt),
    );
    const key = await admin('POST', '/v1/signing-keys', { activate: false });
    await admin('POST', `/v1/signing-keys/${key.kid}/activate`);
    if (before) await admin('POST', `/v1/signing-keys/${before.kid}/activate`);
    await admin('POST', `/v1/signing-keys/${key.kid}/retire`);
    // Streaming destinations and alert rules.
    const dest = await admin('POST', '/v1/streaming/destinations', {
      name: `siem-${suffix}`,
      target: { type: 'webhook', url: 'https://127.0.0.1:9/hook', gzip: true },
      secrets: { webhookSecret: 'whsec-' + 'k'.repeat(40) },
      streams: { auditLog: {} },
    });
    await admin('PATCH', `/v1/streaming/destinations/${dest.id}`, { format: 'ocsf' });
    await admin('POST', `/v1/streaming/destinations/${dest.id}/rotate-secret`, {
      secret: 'whsec-' + 'n'.repeat(40),
      overlapSec: 60,
    });
    await admin('POST', `/v1/streaming/destinations/${dest.id}/replay`, { fromTime: new Date().toISOString() });
    await admin('DELETE', `/v1/streaming/destinations/${dest.id}`);
    const rule = await admin('POST', '/v1/alerts/rules', {
      name: `denials-${suffix}`,
      kind: 'denial_rate',
      params: { windowSec: 60, maxDenials: 5 },
    });
    await admin('PATCH', `/v1/alerts/rules/${rule.id}`, { enabled: false });
    await admin('DELETE', `/v1/alerts/rules/${rule.id}`);

    // The stored rows, and the same entries as the API answers them.
    const rows = await query<{ action: AuditAction; target_type: string; details: unknown }>(
      api.db.url,
      'SELECT action, target_type, details FROM audit_log ORDER BY seq',
    );
    const failures: string[] = [];
    for (const r of rows) {
      const schema = AUDIT_DETAILS[r.action] as z.ZodObject | undefined;
      if (!schema) {
        failures.push(`${r.action}: no details schema`);
        continue;
      }
      const parsed = schema.strict().safeParse(r.details);
      if (!parsed.success)
        failures.push(`${r.action}: ${z.prettifyError(parsed.error)} in ${JSON.stringify(r.details)}`);
    }
    for (const e of await allEntries()) {
      const parsed = auditEntrySchema.safeParse(e);
      if (!parsed.success) failures.push(`response: ${z.prettifyError(parsed.error)} in ${JSON.stringify(e)}`);
    }
    expect(failures).toEqual([]);
    const seen = new Set(rows.map((r) => r.action));
    const unseen = AUDIT_ACTION_NAMES.filter((a) => !seen.has(a));
    // The flow reaches every action but those of SSO, re-enrollment with the same key, bearer-key migration, gate
    // pauses and partition retention (each has its own test file).
    expect(unseen.sort()).toEqual(
      [
        'endpoint.key_migrate',
        'endpoint.reenroll',
        'hook_runs.partition.drop',
        'release.auto_pause',
        'session.create',
        'session.refuse',
        'session.revoke',
        'session.role_change',
        'token.create_personal',
      ].sort(),
    );
  });

  it('documents one branch per action, each with its details schema', async () => {
    const doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body;
    const items = doc.components.schemas.AuditEntryPageDto.properties.items.items;
    const branches = (items.oneOf ?? items.anyOf) as Array<{ properties: Record<string, any> }>;
    expect(branches.map((b) => b.properties.action.enum?.[0] ?? b.properties.action.const)).toEqual(AUDIT_ACTION_NAMES);
    const create = branches.find(
      (b) => (b.properties.action.enum?.[0] ?? b.properties.action.const) === 'group.create',
    )!;
    expect(create.properties.details.properties).toHaveProperty('name');
    expect(create.properties.targetType.enum ?? [create.properties.targetType.const]).toEqual(['group']);
  });
});

async function defaultGroup(): Promise<{ id: string }> {
  const groups = await admin('GET', '/v1/groups');
  return (groups.items as Array<{ id: string; isDefault: boolean }>).find((x) => x.isDefault)!;
}
