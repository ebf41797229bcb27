// `hookwarden endpoints list --admission …`, `approve`, `reject`, `readmit` and enrollment-secret limits through the
// built CLI (child processes) against the real API: tables and JSON, 409s shown with the API's message, exit codes.
// Pending duplicates are inserted as an enrollment without key proof leaves them (test/support/admission.ts).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPendingDuplicate } from '../support/admission';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { enrollWithKey } from '../support/identity';

let api: TestApi;
let tmp: string;
let auditor: string;
let groupId: string;
let secret: string;

const cli = (args: string[], token = api.adminToken) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: token,
  });

let seq = 0;
// Enrolls a machine through the real route; returns its endpoint id.
async function enroll(): Promise<string> {
  const machineId = `cli-adm-${process.pid}-${++seq}-machine`;
  const { res } = await enrollWithKey(api.baseUrl, secret, { machineId, hostname: `host-${seq}` });
  expect(res.status).toBe(201);
  return res.body.endpointId;
}

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-adm-'));
  auditor = await auditorToken(api);
  const g = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'adm-group' } });
  groupId = g.body.id;
  const s = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
    token: api.adminToken,
    body: {},
  });
  secret = s.body.secret;
});
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('endpoints admission commands', () => {
  it('lists pending duplicates, approves one (the old endpoint retired), and refuses wrong-state decisions', async () => {
    const a = await enroll();
    const p = await insertPendingDuplicate(api.db.url, a, { hostname: 'victim-laptop' });

    const table = await cli(['endpoints', 'list', '--admission', 'pending'], auditor);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/ADMISSION\s+DUPLICATE OF/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${p.id}\\s+victim-laptop\\s.*\\bpending\\s+host-${seq} \\(${a}\\)`));
    const json = JSON.parse((await cli(['endpoints', 'list', '--admission', 'pending', '-o', 'json'])).stdout);
    expect(json.items).toEqual([expect.objectContaining({ id: p.id, admission: 'pending', duplicateOf: a })]);
    const findings = await cli(['hook-runs', 'findings', '--kind', 'duplicate_machine_id'], auditor);
    expect(findings.code, findings.stderr).toBe(0);
    expect(findings.stdout).toMatch(new RegExp(`${p.id}\\s+duplicate_machine_id`));
    const bad = await cli(['endpoints', 'list', '--admission', 'limbo']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--admission must be one of active, pending, rejected, retired, got "limbo"/);

    // An auditor may not decide; the API's 403 is shown.
    const denied = await cli(['endpoints', 'approve', p.id], auditor);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/403/);

    const ok = await cli(['endpoints', 'approve', p.id]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(
      `Approved victim-laptop (${p.id}) in group "adm-group"; retired host-${seq} (${a}): its credential no longer works\n`,
    );
    const got = JSON.parse((await cli(['endpoints', 'get', a, '-o', 'json'])).stdout);
    expect(got.admission).toBe('retired');

    const again = await cli(['endpoints', 'approve', p.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409.*is active: only a pending endpoint/s);
    const readmit = await cli(['endpoints', 'readmit', p.id]);
    expect(readmit.code).toBe(1);
    expect(readmit.stderr).toMatch(/is not revoked/);
    const notUuid = await cli(['endpoints', 'reject', 'nope']);
    expect(notUuid.code).toBe(1);
    expect(notUuid.stderr).toMatch(/endpoint id must be a UUID, got "nope"/);
  });

  it('rejects a pending duplicate and re-admits a revoked endpoint (JSON output)', async () => {
    const a = await enroll();
    const p = await insertPendingDuplicate(api.db.url, a);
    const rejected = await cli(['endpoints', 'reject', p.id, '-o', 'json']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ id: p.id, admission: 'rejected' });

    expect((await cli(['endpoints', 'revoke', a])).code).toBe(0);
    const back = await cli(['endpoints', 'readmit', a]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(`Re-admitted host-${seq} (${a}) in group "adm-group"\n`);
    const view = JSON.parse((await cli(['endpoints', 'get', a, '-o', 'json'])).stdout);
    expect(view).toMatchObject({ admission: 'active', revokedAt: null });
  });

  it('creates an enrollment secret with a use limit and expiry and lists its uses', async () => {
    const created = await cli([
      'enrollment-secrets',
      'create',
      'adm-group',
      '--name',
      'limited',
      '--max-uses',
      '2',
      '--expires',
      '2099-01-31T00:00:00Z',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const s = JSON.parse(created.stdout);
    expect(s).toMatchObject({ maxUses: 2, uses: 0, expiresAt: '2099-01-31T00:00:00.000Z' });
    const { res } = await enrollWithKey(api.baseUrl, s.secret, { hostname: 'h', machineId: 'cli-limited-machine' });
    expect(res.status).toBe(201);
    const list = await cli(['enrollment-secrets', 'list', 'adm-group']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${s.id}\\s+limited\\s+\\S+\\s+1/2\\s+2099-01-31 00:00Z`));
    const bad = await cli(['enrollment-secrets', 'create', 'adm-group', '--max-uses', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--max-uses/);
  });
});
