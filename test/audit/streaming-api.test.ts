// Streaming destinations through the API: admins manage them (audited), auditors read them, secrets are write-only
// and sealed at rest, bad input is a located 400; required audit delivery holds admin writes with 503.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { call } from '../support/http';

let api: TestApi;
let auditor: string;
const SECRET = 'whsec-' + 'k'.repeat(40);

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
});
afterAll(async () => {
  await api?.close();
});

const webhook = (name: string) => ({
  name,
  target: { type: 'webhook', url: 'https://127.0.0.1:9/hook', gzip: true },
  secrets: { webhookSecret: SECRET },
  streams: { hookRuns: { decisions: ['deny'] }, auditLog: {} },
});

describe('streaming destinations API', () => {
  it('creates, reads, changes and deletes a destination; secrets are never returned nor stored in clear', async () => {
    const created = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', {
      token: api.adminToken,
      body: webhook('siem-1'),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'siem-1',
      type: 'webhook',
      state: 'active',
      secrets: ['webhookSecret'],
    });
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    const id = created.body.id as string;

    const list = await call(api.baseUrl, 'GET', '/v1/streaming/destinations', { token: auditor });
    expect(list.status).toBe(200);
    expect(list.body.items.map((d: { id: string }) => d.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    expect(list.body.items[0].cursors.map((c: { stream: string }) => c.stream).sort()).toEqual([
      'auditLog',
      'hookRuns',
    ]);

    // Auditors read only.
    const denied = await call(api.baseUrl, 'PATCH', `/v1/streaming/destinations/${id}`, {
      token: auditor,
      body: { enabled: false },
    });
    expect(denied.status).toBe(403);

    const db = new pg.Client({ connectionString: api.db.url });
    await db.connect();
    try {
      const row = await db.query('SELECT secrets_sealed FROM stream_destinations WHERE id = $1', [id]);
      expect(row.rows[0].secrets_sealed).toMatch(/^hwkek1\./);
      expect(row.rows[0].secrets_sealed).not.toContain(SECRET);
      const audit = await db.query(
        "SELECT action, details::text AS d FROM audit_log WHERE target_type = 'stream_destination' ORDER BY seq",
      );
      expect(audit.rows.map((r) => r.action)).toEqual(['stream_destination.create']);
      expect(audit.rows[0].d).not.toContain(SECRET);
    } finally {
      await db.end();
    }

    const patched = await call(api.baseUrl, 'PATCH', `/v1/streaming/destinations/${id}`, {
      token: api.adminToken,
      body: { format: 'ocsf', streams: { findings: {} } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.format).toBe('ocsf');
    expect(patched.body.cursors.map((c: { stream: string }) => c.stream)).toEqual(['findings']);

    const rotated = await call(api.baseUrl, 'POST', `/v1/streaming/destinations/${id}/rotate-secret`, {
      token: api.adminToken,
      body: { secret: 'whsec-' + 'n'.repeat(40), overlapSec: 60 },
    });
    expect(rotated.status).toBe(200);
    expect(Date.parse(rotated.body.previousSecretUntil)).toBeGreaterThan(Date.now());

    const dup = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', {
      token: api.adminToken,
      body: webhook('siem-1'),
    });
    expect(dup.status).toBe(409);

    const del = await call(api.baseUrl, 'DELETE', `/v1/streaming/destinations/${id}`, { token: api.adminToken });
    expect(del.status).toBe(200);
    expect((await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: auditor })).status).toBe(404);
  });

  it('refuses bad input with a located 400 and no partial write', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...webhook('x'), secrets: {} }, 'secrets.webhookSecret'],
      [{ ...webhook('x'), target: { type: 'webhook', url: 'ftp://h/x' } }, 'target.url'],
      [{ ...webhook('x'), streams: {} }, 'streams'],
      [{ ...webhook('x'), target: { type: 'syslog_tcp', host: 'h', port: 70000 } }, 'target.port'],
      [{ ...webhook('x'), target: { type: 'syslog_tcp', host: 'h', port: 514 } }, 'secrets.webhookSecret'],
      [{ ...webhook('x'), streams: { hookRuns: { groups: ['nope'] } } }, 'streams.hookRuns.groups'],
    ];
    for (const [body, where] of cases) {
      const res = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', { token: api.adminToken, body });
      expect(res.status, where).toBe(400);
      expect(res.body.error.message, where).toContain(where);
    }
    const replay = await call(
      api.baseUrl,
      'POST',
      `/v1/streaming/destinations/00000000-0000-4000-8000-000000000001/replay`,
      {
        token: api.adminToken,
        body: {},
      },
    );
    expect(replay.status).toBe(404);
    const list = await call(api.baseUrl, 'GET', '/v1/streaming/destinations', { token: api.adminToken });
    expect(list.body.items.filter((d: { name: string }) => d.name === 'x')).toEqual([]);
  });

  it('holds admin writes with 503 while a destination requiring audit delivery cannot deliver', async () => {
    const created = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', {
      token: api.adminToken,
      body: {
        name: 'vault-style',
        target: { type: 'syslog_tcp', host: '127.0.0.1', port: 9 },
        streams: { auditLog: {} },
        requireAuditDelivery: true,
      },
    });
    expect(created.status).toBe(201);
    const ok = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'before' } });
    expect(ok.status).toBe(201);
    // The worker's record of a failed delivery (as DeliveryService writes it).
    const db = new pg.Client({ connectionString: api.db.url });
    await db.connect();
    try {
      await db.query(
        "UPDATE stream_destinations SET state = 'failing', last_error = 'connect ECONNREFUSED', failing_since = now() WHERE id = $1",
        [created.body.id],
      );
    } finally {
      await db.end();
    }
    // The guard reads the state at most once a second.
    let refused = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'during' } });
    for (let end = Date.now() + 5000; refused.status !== 503 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 200));
      refused = await call(api.baseUrl, 'POST', '/v1/groups', {
        token: api.adminToken,
        body: { name: `d${Date.now()}` },
      });
    }
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toContain('vault-style');
    expect(refused.headers.get('retry-after')).toBe('5');
    // Reads go on, and the streaming routes stay open to repair the destination.
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken })).status).toBe(200);
    const off = await call(api.baseUrl, 'PATCH', `/v1/streaming/destinations/${created.body.id}`, {
      token: api.adminToken,
      body: { requireAuditDelivery: false },
    });
    expect(off.status).toBe(200);
    const deadline = Date.now() + 5000;
    let after = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'after' } });
    while (after.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      after = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'after' } });
    }
    expect(after.status).toBe(201);
  });

  it('manages alert rules (auditors read) and lists alerts', async () => {
    const rule = await call(api.baseUrl, 'POST', '/v1/alerts/rules', {
      token: api.adminToken,
      body: { name: 'denials', kind: 'denial_rate', params: { windowSec: 60, maxDenials: 5 } },
    });
    expect(rule.status).toBe(201);
    expect(
      (await call(api.baseUrl, 'POST', '/v1/alerts/rules', { token: auditor, body: { name: 'x', kind: 'chain_gap' } }))
        .status,
    ).toBe(403);
    const bad = await call(api.baseUrl, 'POST', '/v1/alerts/rules', {
      token: api.adminToken,
      body: { name: 'y', kind: 'denial_rate', params: { windowSec: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('params.windowSec');
    const rules = await call(api.baseUrl, 'GET', '/v1/alerts/rules', { token: auditor });
    expect(rules.body.items.map((r: { name: string }) => r.name)).toEqual(['denials']);
    const alerts = await call(api.baseUrl, 'GET', '/v1/alerts?state=firing', { token: auditor });
    expect(alerts.status).toBe(200);
    expect(alerts.body.items).toEqual([]);
  });
});
