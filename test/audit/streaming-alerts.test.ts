// Alerts evaluated by the worker and sent to a webhook destination's alerts stream: a denial spike fires once and
// resolves once; a rollout paused by its gate alerts within one tick; a chain gap and a silent endpoint alert too.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleasesRepository } from '../../apps/api/src/releases/releases.repository';
import { ROLLOUT_ACTOR } from '../../apps/api/src/releases/releases.service';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints, eventually, ingestRecords, runRecord } from '../support/audit-factories';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

const SECRET = 'whsec-alerts-' + 'z'.repeat(40);
const TICK_SEC = 0.5;

let api: TestApi;
let worker: INestApplicationContext;
let server: http.Server;
const received: Array<{ id: string; type: string; data: Record<string, any> }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = String(req.headers['x-hookwarden-timestamp']);
      const want = 'v1=' + createHmac('sha256', SECRET).update(`${ts}.`).update(raw).digest('hex');
      if (!String(req.headers['x-hookwarden-signature']).split(', ').includes(want)) {
        res.writeHead(401).end();
        return;
      }
      for (const line of raw.toString('utf8').split('\n').filter(Boolean)) received.push(JSON.parse(line));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = await startTestApi({
    STREAM_POLL_MS: '200',
    ALERT_INTERVAL_SEC: String(TICK_SEC),
    HOOK_RUN_GAP_GRACE_SEC: '0',
  });
  worker = await startTestWorker(api.config);
  const port = (server.address() as { port: number }).port;
  const d = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', {
    token: api.adminToken,
    body: {
      name: 'pager',
      target: { type: 'webhook', url: `http://127.0.0.1:${port}/alerts` },
      secrets: { webhookSecret: SECRET },
      streams: { alerts: {} },
    },
  });
  expect(d.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await api?.close();
  await new Promise((r) => server?.close(r));
});

// Creates a rule and returns its id.
async function rule(body: Record<string, unknown>): Promise<string> {
  const res = await call(api.baseUrl, 'POST', '/v1/alerts/rules', { token: api.adminToken, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const alertsOf = async (ruleId: string) =>
  (await call(api.baseUrl, 'GET', '/v1/alerts?limit=500', { token: api.adminToken })).body.items.filter(
    (a: { ruleId: string }) => a.ruleId === ruleId,
  );

describe('alerts', () => {
  it('a denial spike fires once (across many ticks) and resolves once', async () => {
    const id = await rule({ name: 'denials', kind: 'denial_rate', params: { windowSec: 10, maxDenials: 5 } });
    const [ep] = await createEndpoints(api.db.url, 1);
    // Denials that leave the 10 s window about 4 s from now.
    const at = new Date(Date.now() - 6000);
    await ingestRecords(
      api,
      ep!,
      Array.from({ length: 8 }, (_, i) => runRecord({ seq: i + 1, decision: 'deny', startedAt: at })),
    );
    const fired = await eventually(async () => {
      const a = await alertsOf(id);
      return a.length > 0 ? a : null;
    }, 20_000);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ state: 'firing', subject: 'fleet', kind: 'denial_rate' });
    expect(fired[0].summary).toContain('8 denials');
    const resolved = await eventually(async () => {
      const a = await alertsOf(id);
      return a[0]?.state === 'resolved' ? a : null;
    }, 30_000);
    expect(resolved).toHaveLength(1); // still one episode
    // Several more ticks: no new episode.
    const ticks = Date.now() + 4 * TICK_SEC * 1000;
    await eventually(async () => Date.now() > ticks && (await alertsOf(id)).length === 1);
    // The webhook got exactly one fired and one resolved event of the episode.
    const sent = await eventually(() => {
      const mine = received.filter((e) => e.data.ruleId === id);
      return Promise.resolve(mine.length >= 2 ? mine : null);
    }, 20_000);
    expect(sent.map((e) => e.type)).toEqual(['alert.fired', 'alert.resolved']);
    expect(sent[0]!.data.alertId).toBe(fired[0].id);
  }, 90_000);

  it('a rollout paused by its gate alerts within one tick', async () => {
    const id = await rule({ name: 'paused', kind: 'rollout_paused' });
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const v = await createVersion(api, policyId, '[hooks]\n', []);
    const rel = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/releases`, {
      token: api.adminToken,
      body: { policyVersionId: v.versionId, strategy: 'staged', rings: [50, 100], ringIntervalSec: 3600 },
    });
    expect(rel.status, JSON.stringify(rel.body)).toBe(201);
    // The gate's own transition (what ReleasesService.gate records when failure rates exceed the thresholds).
    const paused = await api.app
      .get(ReleasesRepository)
      .transition(
        rel.body.id,
        { status: ['rolling'] },
        { status: 'paused', pausedReason: 'apply failures 3/4 > 5%' },
        ROLLOUT_ACTOR,
        {
          action: 'release.auto_pause',
          details: { reason: 'apply failures 3/4 > 5%' },
        },
      );
    expect(paused?.status).toBe('paused');
    const t0 = Date.now();
    const a = await eventually(async () => {
      const list = await alertsOf(id);
      return list.length > 0 ? list : null;
    }, 10_000);
    // Within one tick of the pause (plus the evaluation itself on a loaded machine).
    expect(Date.now() - t0).toBeLessThan(TICK_SEC * 1000 + 3000);
    expect(a[0]).toMatchObject({ subject: rel.body.id, state: 'firing' });
    expect(a[0].summary).toContain('apply failures 3/4');
    // An admin pause is not a gate pause: resuming resolves the episode.
    const resumed = await call(api.baseUrl, 'POST', `/v1/releases/${rel.body.id}/resume`, { token: api.adminToken });
    expect(resumed.status).toBe(200);
    await eventually(async () => (await alertsOf(id))[0]?.state === 'resolved', 10_000);
  }, 60_000);

  it('a record-chain gap and a silent endpoint alert, one episode per subject', async () => {
    const gaps = await rule({ name: 'gaps', kind: 'chain_gap' });
    const silent = await rule({ name: 'silent', kind: 'endpoint_silent', params: { hours: 1 } });
    const [ep] = await createEndpoints(api.db.url, 1);
    await ingestRecords(api, ep!, [runRecord({ seq: 1 }), runRecord({ seq: 5 })]); // 2–4 missing
    const db = new pg.Client({ connectionString: api.db.url });
    await db.connect();
    try {
      await db.query("UPDATE endpoints SET last_seen_at = now() - interval '2 hours' WHERE id = $1", [ep!.id]);
    } finally {
      await db.end();
    }
    const g = await eventually(async () => {
      const l = (await alertsOf(gaps)).filter(
        (x: { details: { endpointId: string } }) => x.details.endpointId === ep!.id,
      );
      return l.length > 0 ? l : null;
    }, 30_000);
    expect(g).toHaveLength(1);
    expect(g[0].summary).toContain('missing_range');
    const s = await eventually(async () => {
      const l = (await alertsOf(silent)).filter((x: { subject: string }) => x.subject === ep!.id);
      return l.length > 0 ? l : null;
    }, 30_000);
    expect(s).toHaveLength(1);
  }, 60_000);
});
