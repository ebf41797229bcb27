// `hookwarden sessions list/revoke` through the built CLI against a real API: every filter of GET /v1/sessions
// (live/ended, subject) narrows the list, an admin revokes a live session (audited, then listed as ended), and an
// auditor token is refused.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';

let api: TestApi;
let auditor: string;
const ids = { bobLive: randomUUID(), bobEnded: randomUUID(), carolLive: randomUUID() };

const cli = (args: string[], token = api.adminToken) =>
  runCli(['--config', '/nonexistent/hookwarden.toml', ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: token,
  });
const listed = async (args: string[]) => {
  const r = await cli(['sessions', 'list', ...args, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).items as Array<{ id: string }>).map((s) => s.id).sort();
};

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  // Sessions as SSO sign-ins leave them (the sign-in itself is test/sso's): two of bob's (one revoked), one of carol's.
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  try {
    const insert = `INSERT INTO user_sessions (id, secret_hash, issuer, subject, email, role, expires_at, revoked_at,
      revoked_reason) VALUES ($1, $2, 'https://idp.example', $3, $4, $5, now() + interval '8 hours', $6, $7)`;
    await db.query(insert, [ids.bobLive, randomUUID(), 'bob', 'bob@example.com', 'admin', null, null]);
    await db.query(insert, [ids.bobEnded, randomUUID(), 'bob', 'bob@example.com', 'admin', new Date(), 'logout']);
    await db.query(insert, [ids.carolLive, randomUUID(), 'carol', null, 'auditor', null, null]);
  } finally {
    await db.end();
  }
}, 120_000);
afterAll(async () => {
  await api?.close();
});

describe('hookwarden sessions', () => {
  it('lists with every filter of the API, and revokes a live session', async () => {
    expect(await listed([])).toEqual(Object.values(ids).sort());
    expect(await listed(['--active'])).toEqual([ids.bobLive, ids.carolLive].sort());
    expect(await listed(['--ended'])).toEqual([ids.bobEnded]);
    expect(await listed(['--active', '--subject', 'bob'])).toEqual([ids.bobLive]);
    expect(await listed(['--subject', 'carol'])).toEqual([ids.carolLive]);

    const table = await cli(['sessions', 'list', '--subject', 'bob']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+SUBJECT\s+EMAIL\s+ROLE\s+LAST SEEN\s+EXPIRES\s+REVOKED/);
    expect(table.stdout).toContain('bob@example.com');
    expect(table.stdout).toContain('logout');

    const revoked = await cli(['sessions', 'revoke', ids.bobLive, '-o', 'json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: ids.bobLive, revokedReason: 'revoked_by_admin' });
    expect(await listed(['--active'])).toEqual([ids.carolLive]);
    expect(await listed(['--ended', '--subject', 'bob'])).toEqual([ids.bobEnded, ids.bobLive].sort());
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?action=session.revoke&targetId=${ids.bobLive}`, {
      token: api.adminToken,
    });
    expect(audit.body.items).toHaveLength(1);
  });

  it('refuses a malformed id before any request, an unknown one with 404, and an auditor with 403', async () => {
    const bad = await cli(['sessions', 'revoke', 'not-a-uuid']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('session id must be a UUID');
    const unknown = await cli(['sessions', 'revoke', randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404');
    const denied = await cli(['sessions', 'list'], auditor);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('403');
    expect(await listed(['--active'])).toContain(ids.carolLive);
  });
});
