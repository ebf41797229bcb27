// Signed agent requests against real API instances (shared Redis for nonces): every refusal has its own code, on the
// raw bundle route and on Nest routes alike; a copied request is useless, a replay is refused on any instance.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDigest, newNonce, signRequest } from '@hookwarden/hook-core';
import { startTestApi, type TestApi } from '../support/api';
import { chainedLines, createEndpoints } from '../support/audit-factories';
import { call } from '../support/http';
import { enrollAgent, enrollWithKey, keyedEndpoints, send, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy, query } from '../support/sync-factories';

let api: TestApi;
let peer: TestApi;
let a: SignedAgent;
let b: SignedAgent;
let secret: string;

beforeAll(async () => {
  // Many refusals on purpose: the failure limit is raised so they are not answered 429.
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '10000' });
  peer = await startTestApi({ AUTH_FAILURE_LIMIT: '10000' }, { sameAs: api });
  const { groupId } = await createGroupWithPolicy(api);
  const res = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
    token: api.adminToken,
    body: { name: 'sig' },
  });
  secret = res.body.secret;
  a = await enrollAgent(api.baseUrl, secret);
  b = await enrollAgent(api.baseUrl, secret);
});
afterAll(async () => {
  await peer?.close();
  await api?.close();
});

const status = { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: null };

// The error code of an answer.
const code = (r: { body: any }) => r.body?.error?.code;

describe.each([
  ['raw bundle route', 'GET', '/v1/agent/bundle', undefined, 204],
  ['Nest route', 'POST', '/v1/agent/status', status, 200],
])('%s', (_name, method, path, body, ok) => {
  it('accepts a signed request once; the same request again is a replay, on this and on another instance', async () => {
    const nonce = newNonce();
    const first = await a.call(method, path, { body, nonce });
    expect(first.status).toBe(ok);
    const again = await a.call(method, path, { body, nonce });
    expect(again.status).toBe(401);
    expect(code(again)).toBe('replayed_request');
    // The exact same bytes sent to another instance (shared nonce store).
    const headers = await a.sign(method, path, body === undefined ? undefined : JSON.stringify(body));
    const extra: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    expect((await send(api.baseUrl, method, path, payload, { ...headers, ...extra })).status).toBe(ok);
    const replay = await send(peer.baseUrl, method, path, payload, { ...headers, ...extra });
    expect(replay.status).toBe(401);
    expect(code(replay)).toBe('replayed_request');
  });

  it('refuses a stale or future timestamp naming the offset and the limit', async () => {
    const stale = await a.call(method, path, { body, now: Date.now() - 10 * 60_000 });
    expect(stale.status).toBe(401);
    expect(code(stale)).toBe('clock_skew');
    expect(stale.body.error.message).toMatch(/created time is 60\d s behind the server's clock; the limit is 300 s/);
    const ahead = await a.call(method, path, { body, now: Date.now() + 20 * 60_000 });
    expect(code(ahead)).toBe('clock_skew');
    expect(ahead.body.error.message).toMatch(/ahead of/);
  });

  it('refuses a changed path or query (signature_invalid)', async () => {
    const other = method === 'GET' ? '/v1/agent/keys' : '/v1/agent/assignment';
    const r = await a.call(method, path, { body, signTarget: other });
    expect(r.status).toBe(401);
    expect(code(r)).toBe('signature_invalid');
    const q = await a.call(method, path, { body, signTarget: `${path}?x=1` });
    expect(code(q)).toBe('signature_invalid');
  });

  it("refuses another endpoint's session, a missing or malformed signature, an unknown or expired session", async () => {
    // B signs with A's session id but its own key: the HMAC does not verify.
    const theirs = { id: a.session!.id, key: b.session?.key ?? Buffer.alloc(32, 7) };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const extra: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const forged = signRequest(
      { method, target: path, body: payload },
      { alg: 'hmac-sha256', keyid: theirs.id, secret: theirs.key },
    );
    const r = await send(api.baseUrl, method, path, payload, { ...forged, ...extra });
    expect(r.status).toBe(401);
    expect(code(r)).toBe('signature_invalid');

    const none = await send(api.baseUrl, method, path, payload, extra);
    expect(none.status).toBe(401);
    expect(code(none)).toBe('signature_required');
    const good = await a.sign(method, path, payload);
    const malformed = await send(api.baseUrl, method, path, payload, {
      ...good,
      ...extra,
      'signature-input': good['signature-input'].replace('"@query" ', ''),
    });
    expect(code(malformed)).toBe('signature_malformed');
    const noDigest = await send(api.baseUrl, method, path, payload, {
      ...extra,
      'signature-input': good['signature-input'],
      signature: good.signature,
    });
    expect(code(noDigest)).toBe('signature_required');
    const unknown = signRequest(
      { method, target: path, body: payload },
      { alg: 'hmac-sha256', keyid: 'hs1.nope', secret: Buffer.alloc(32) },
    );
    expect(code(await send(api.baseUrl, method, path, payload, { ...unknown, ...extra }))).toBe('session_expired');
    const expiredId = a.session!.id.replace(
      /\.(\d{10})\./,
      `.${String(Math.floor(Date.now() / 1000) - 5).padStart(10, '0')}.`,
    );
    const expired = signRequest(
      { method, target: path, body: payload },
      { alg: 'hmac-sha256', keyid: expiredId, secret: a.session!.key },
    );
    const e = await send(api.baseUrl, method, path, payload, { ...expired, ...extra });
    expect(code(e)).toBe('session_expired');
    expect(e.body.error.message).toMatch(/POST \/v1\/agent\/session/);
  });
});

describe('bodies', () => {
  it('refuses a changed body: digest_mismatch, or signature_invalid when the digest was recomputed', async () => {
    const changed = await a.call('POST', '/v1/agent/status', {
      body: { ...status, state: 'failed' },
      signBody: JSON.stringify(status),
    });
    expect(changed.status).toBe(401);
    expect(code(changed)).toBe('digest_mismatch');
    const payload = JSON.stringify({ ...status, state: 'failed' });
    const h = await a.sign('POST', '/v1/agent/status', JSON.stringify(status));
    const recomputed = await send(api.baseUrl, 'POST', '/v1/agent/status', payload, {
      ...h,
      'content-digest': contentDigest(payload),
      'content-type': 'application/json',
    });
    expect(code(recomputed)).toBe('signature_invalid');
  });

  it('covers the bytes as sent on gzip NDJSON uploads and inventory uploads', async () => {
    const [ep] = await keyedEndpoints(api, 1);
    const gz = gzipSync(chainedLines(2, 1).lines.join('\n') + '\n');
    const headers = { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' };
    const up = await ep!.call('POST', '/v1/agent/hook-runs', { body: gz, headers });
    expect(up.status).toBe(202);
    const tampered = Buffer.from(gz);
    const other = gzipSync(chainedLines(2, 3).lines.join('\n') + '\n');
    const bad = await ep!.call('POST', '/v1/agent/hook-runs', { body: other, headers, signBody: tampered });
    expect(code(bad)).toBe('digest_mismatch');
    const inv = await ep!.call('POST', '/v1/agent/inventory', {
      body: Buffer.from('{"nope":1}'),
      headers: { 'content-type': 'application/vnd.hookwarden.inventory+json' },
      signBody: '{"nope":2}',
    });
    expect(code(inv)).toBe('digest_mismatch');
  });
});

describe('sessions and endpoint states', () => {
  it("refuses a session request signed by another key with this endpoint's key id, or with a session key", async () => {
    const body = JSON.stringify({});
    const forged = signRequest(
      { method: 'POST', target: '/v1/agent/session', body },
      { alg: 'ed25519', keyid: a.key.keyId, privateKey: b.key.privateKey },
    );
    const r = await send(api.baseUrl, 'POST', '/v1/agent/session', body, {
      ...forged,
      'content-type': 'application/json',
    });
    expect(r.status).toBe(401);
    expect(code(r)).toBe('signature_invalid');
    const hmac = await a.sign('POST', '/v1/agent/session', body);
    const m = await send(api.baseUrl, 'POST', '/v1/agent/session', body, {
      ...hmac,
      'content-type': 'application/json',
    });
    expect(code(m)).toBe('signature_malformed');
    // Without an ephemeral key the session key comes in clear and works.
    const clear = signRequest(
      { method: 'POST', target: '/v1/agent/session', body },
      { alg: 'ed25519', keyid: a.key.keyId, privateKey: a.key.privateKey },
    );
    const s = await send(api.baseUrl, 'POST', '/v1/agent/session', body, {
      ...clear,
      'content-type': 'application/json',
    });
    expect(s.status).toBe(200);
    expect(s.body.sessionKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(s.body.expiresAt) - Date.now()).toBeGreaterThan(500_000);
  });

  it('a pending endpoint gets 403 endpoint_pending; a revoked one 401; a keyed endpoint refuses its bearer', async () => {
    const [row] = await query(api.db.url, 'SELECT machine_id FROM endpoints WHERE id = $1', [a.endpointId]);
    const dup = await enrollWithKey(api.baseUrl, secret, { machineId: row.machine_id });
    expect(dup.res.status).toBe(202);
    const p = await dup.agent!.openSession();
    expect(p.status).toBe(403);
    expect(code(p)).toBe('endpoint_pending');
    const [c] = await keyedEndpoints(api, 1);
    expect((await c!.call('GET', '/v1/agent/bundle')).status).toBe(204);
    expect(
      (await call(api.baseUrl, 'POST', `/v1/endpoints/${c!.endpointId}/revoke`, { token: api.adminToken })).status,
    ).toBe(200);
    const revoked = await c!.call('GET', '/v1/agent/bundle');
    expect(revoked.status).toBe(401);
    expect(code(revoked)).toBe('unauthorized');
    expect(code(await c!.call('POST', '/v1/agent/status', { body: status }))).toBe('unauthorized');
    // A legacy endpoint's bearer still works until it has a key; an unknown bearer is told to sign.
    const [legacy] = await createEndpoints(api.db.url, 1);
    expect((await call(api.baseUrl, 'GET', '/v1/agent/bundle', { token: legacy!.credential })).status).toBe(204);
    const unknown = await call(api.baseUrl, 'GET', '/v1/agent/bundle', { token: 'hwe_unknown' });
    expect(unknown.status).toBe(401);
    expect(code(unknown)).toBe('signature_required');
    // A signed agent request on an admin route is an agent: 403 by role.
    expect((await a.call('GET', '/v1/endpoints')).status).toBe(403);
  });
});
