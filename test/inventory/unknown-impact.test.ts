// A release of an allow_managed_hooks_only version to endpoints that have not reported an inventory: the impact is
// unknown, not none — the preview counts and names those endpoints, the release needs the acknowledgement (428
// naming them), and the CLI's `releases preview` says "unknown" instead of printing zeros. A version that cannot
// suppress anything still releases without one.
import path from 'node:path';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion } from '../support/sync-factories';

const MANAGED = '/opt/hw-unknown';
let api: TestApi;
let tmp: string;
let groupId: string;
let policyId: string;
let groupName: string;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });
const toml = (extra: string) =>
  `${extra}[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\n` +
  `command = "${MANAGED}/s.sh"\n`;
const cli = (args: string[]) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: api.adminToken,
  });

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-unknown-impact-'));
  ({ groupId, policyId } = await createGroupWithPolicy(api));
  groupName = (await admin('GET', `/v1/groups/${groupId}`)).body.name;
  // Two endpoints that enrolled but never reported an inventory.
  await createEndpoints(api.db.url, 2, groupId);
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('unknown release impact', () => {
  it('allow_managed_hooks_only to endpoints without an inventory: unknown, named, and acknowledged', async () => {
    const v = await createVersion(api, policyId, toml('allow_managed_hooks_only = true\n\n'), [
      { path: 's.sh', content: '#!/bin/sh\n' },
    ]);
    const preview = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${v.versionId}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      endpoints: { total: 2, known: 0, unknown: 2 },
      impactUnknown: true,
      requiresAck: true,
    });
    expect(preview.body.unknownImpact.map((u: any) => [u.hostname, u.inventoryAt]).sort()).toEqual([
      ['host-0', null],
      ['host-1', null],
    ]);

    // The CLI says unknown, not "0 hooks on 0 endpoints", and shows `?` for the endpoints' counts.
    const shown = await cli(['releases', 'preview', groupName, '--version-id', v.versionId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      'suppressed by allow_managed_hooks_only: unknown: none of the 2 endpoint(s) has a current inventory',
    );
    expect(shown.stdout).not.toMatch(/suppressed by allow_managed_hooks_only: 0 hook/);
    expect(shown.stdout).toMatch(/unknown impact \(no or stale inventory\): 2 endpoint\(s\): host-[01], host-[01]/);
    expect(shown.stdout).toMatch(
      /requires acknowledgement: yes, the impact on endpoints without a current inventory is unknown \(preview/,
    );
    expect(shown.stdout).toMatch(/^host-0\s+\S+\s+\?\s+\?\s+\?\s+\?\s+\?\s+yes/m);
    expect(shown.stdout).toContain(`--ack-preview ${preview.body.digest}`);

    // Starting it without the acknowledgement: 428 naming the unknown endpoints and the digest (API and CLI).
    const refused = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId });
    expect(refused.status).toBe(428);
    expect(refused.body.error.message).toMatch(
      /has an unknown impact on 2 endpoints without a current inventory \(host-[01], host-[01]\)/,
    );
    expect(refused.body.error.message).not.toContain('suppresses 0 hooks');
    expect(refused.body.error.message).toContain(preview.body.digest);
    const viaCli = await cli(['releases', 'create', groupName, '--version-id', v.versionId]);
    expect(viaCli.code).toBe(1);
    expect(viaCli.stderr).toContain('unknown: none of the 2 endpoint(s) has a current inventory');
    expect(viaCli.stderr).toContain(`--ack-preview ${preview.body.digest}`);

    const released = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v.versionId,
      previewAck: preview.body.digest,
    });
    expect(released.status).toBe(201);
  });

  it('a version that cannot suppress anything needs no acknowledgement, inventories or not', async () => {
    const v = await createVersion(api, policyId, toml(''), [{ path: 's.sh', content: '#!/bin/sh\necho 2\n' }]);
    const preview = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${v.versionId}`);
    expect(preview.body).toMatchObject({ endpoints: { unknown: 2 }, impactUnknown: false, requiresAck: false });
    const shown = await cli(['releases', 'preview', groupName, '--version-id', v.versionId]);
    expect(shown.stdout).toContain('suppressed by allow_managed_hooks_only: 0 hook(s) on 0 endpoint(s)');
    const released = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId });
    expect(released.status).toBe(201);
  });
});
