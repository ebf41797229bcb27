// Streaming to a local HTTPS webhook receiver that verifies signatures the way docs/streaming.md tells receivers to
// (HMAC-SHA256 over `<timestamp>.<raw body>`, any `v1=` signature, timestamp within 5 minutes): a wrong secret is
// detected, a rotated secret is accepted during the overlap, a 500 or a timeout is retried with backoff, a receiver
// that never recovers dead-letters the destination with the reason, and a replay delivers again with the same ids.
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints, eventually, ingestRecords, runRecord } from '../support/audit-factories';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

const run = promisify(execFile);
// A synchronous check as eventually() takes it.
const sync =
  <T>(check: () => T) =>
  (): Promise<T> =>
    Promise.resolve(check());
const OLD = 'whsec-old-' + 'a'.repeat(40);
const NEW = 'whsec-new-' + 'b'.repeat(40);

let api: TestApi;
let worker: INestApplicationContext;
let dir: string;
let server: https.Server;
let url: string;
let caPem: string;

/** What the receiver does with the next request. */
const receiver = {
  secrets: [OLD] as string[],
  /** Answer 500 to this many requests, then accept. */
  fail500: 0,
  /** Never answer this many requests (the sender's timeout). */
  hang: 0,
  /** Answer 503 to everything. */
  down: false,
  attempts: [] as Array<{ at: number; status: number }>,
  events: [] as Array<{ id: string; stream: string; sequence: string; data: Record<string, any> }>,
};

// The documented verification: every `v1=` signature of the header, against every secret the receiver trusts.
function verified(headers: Record<string, string | string[] | undefined>, raw: Buffer, secrets: string[]): boolean {
  const ts = String(headers['x-hookwarden-timestamp'] ?? '');
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const sigs = String(headers['x-hookwarden-signature'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('v1='))
    .map((s) => Buffer.from(s.slice(3), 'hex'));
  return secrets.some((secret) => {
    const want = createHmac('sha256', secret).update(`${ts}.`).update(raw).digest();
    return sigs.some((s) => s.length === want.length && timingSafeEqual(s, want));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hw-stream-webhook-'));
  await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
    ],
    { cwd: dir },
  );
  caPem = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: caPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const answer = (status: number): void => {
        receiver.attempts.push({ at: Date.now(), status });
        res.writeHead(status).end();
      };
      if (receiver.hang > 0) {
        receiver.hang--;
        receiver.attempts.push({ at: Date.now(), status: 0 });
        return; // never answers
      }
      if (receiver.down) return answer(503);
      if (receiver.fail500 > 0) {
        receiver.fail500--;
        return answer(500);
      }
      if (!verified(req.headers, raw, receiver.secrets)) return answer(401);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      for (const line of body.toString('utf8').split('\n').filter(Boolean)) receiver.events.push(JSON.parse(line));
      answer(204);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as { port: number }).port}/hookwarden`;
  writeFileSync(path.join(dir, 'url'), url);
  api = await startTestApi({ STREAM_POLL_MS: '200', STREAM_BACKOFF_BASE_MS: '300', STREAM_BACKOFF_MAX_MS: '3000' });
  worker = await startTestWorker(api.config);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await api?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const get = async (id: string) =>
  (await call(api.baseUrl, 'GET', `/v1/streaming/destinations/${id}`, { token: api.adminToken })).body;

// Ingests `n` records of a new endpoint and returns their event ids.
async function ingest(n: number): Promise<string[]> {
  const [ep] = await createEndpoints(api.db.url, 1);
  const records = Array.from({ length: n }, (_, i) => runRecord({ seq: i + 1 }));
  await ingestRecords(api, ep!, records);
  return records.map((r) => `hookrun:${ep!.id}:${r.id}`);
}

// Waits until the receiver holds every id.
const arrived = (ids: string[], timeoutMs = 60_000) =>
  eventually(
    sync(() => {
      const have = new Set(receiver.events.map((e) => e.id));
      return ids.every((i) => have.has(i));
    }),
    timeoutMs,
  );

describe('streaming to a signed HTTPS webhook', () => {
  let id: string;

  it('delivers gzip NDJSON batches signed with the destination secret (CA pinned)', async () => {
    const res = await call(api.baseUrl, 'POST', '/v1/streaming/destinations', {
      token: api.adminToken,
      body: {
        name: 'hook',
        target: { type: 'webhook', url, gzip: true, batch: 'ndjson', caPem, timeoutMs: 1000 },
        secrets: { webhookSecret: OLD },
        streams: { hookRuns: {} },
        batchMaxEvents: 25,
      },
    });
    expect(res.status).toBe(201);
    id = res.body.id;
    const ids = await ingest(60);
    await arrived(ids);
    expect(receiver.attempts.every((a) => a.status === 204)).toBe(true);
    expect(receiver.attempts.length).toBeGreaterThanOrEqual(3); // 25 per batch
    const d = await eventually(async () => ((await get(id)).deliveredCount === 60 ? get(id) : null));
    expect(d.state).toBe('active');
  });

  it('a receiver holding the wrong secret detects it; the destination reports the refusal', async () => {
    receiver.secrets = ['whsec-wrong-' + 'c'.repeat(40)];
    const ids = await ingest(5);
    const d = await eventually(async () => {
      const v = await get(id);
      return v.state === 'failing' ? v : null;
    });
    expect(d.lastError).toContain('answered 401');
    expect(receiver.events.some((e) => ids.includes(e.id))).toBe(false);
    // Fixed at the receiver: the same events arrive (nothing was skipped).
    receiver.secrets = [OLD];
    await arrived(ids);
  });

  it('a rotated secret: during the overlap both old and new receivers accept; after it only the new one', async () => {
    const rotated = await call(api.baseUrl, 'POST', `/v1/streaming/destinations/${id}/rotate-secret`, {
      token: api.adminToken,
      body: { secret: NEW, overlapSec: 5 },
    });
    expect(rotated.status).toBe(200);
    receiver.secrets = [OLD]; // not switched yet: still accepts (the previous secret signs too)
    await arrived(await ingest(3));
    receiver.secrets = [NEW]; // switched
    await arrived(await ingest(3));
    await eventually(
      sync(() => Date.now() > Date.parse(rotated.body.previousSecretUntil) + 500),
      10_000,
    );
    receiver.secrets = [OLD]; // a receiver that never switched is refused after the overlap
    const late = await ingest(2);
    const d = await eventually(async () => {
      const v = await get(id);
      return v.state === 'failing' ? v : null;
    });
    expect(d.lastError).toContain('401');
    receiver.secrets = [NEW];
    await arrived(late);
  });

  it('a 500 and a timeout are retried with growing, jittered delays; nothing is lost', async () => {
    receiver.attempts = [];
    receiver.hang = 1;
    receiver.fail500 = 4;
    const ids = await ingest(4);
    await arrived(ids, 90_000);
    const tries = receiver.attempts;
    expect(tries.slice(0, 5).map((t) => t.status)).toEqual([0, 500, 500, 500, 500]);
    const gaps = tries.slice(1, 6).map((t, i) => t.at - tries[i]!.at);
    // Base 300 ms doubling with equal jitter: each delay at least half of its exponential step.
    gaps.slice(1).forEach((g, i) => expect(g).toBeGreaterThanOrEqual(Math.min(150 * 2 ** (i + 1), 1500) - 50));
    // The destination is marked recovered just after the batch that got through (not before the receiver has it).
    await eventually(async () => (await get(id)).state === 'active', 30_000);
  }, 120_000);

  it('a receiver that never recovers dead-letters the destination with the reason; replay delivers again', async () => {
    await call(api.baseUrl, 'PATCH', `/v1/streaming/destinations/${id}`, {
      token: api.adminToken,
      body: { deadLetterAfterSec: 10 },
    });
    receiver.down = true;
    const ids = await ingest(3);
    const dead = await eventually(async () => {
      const v = await get(id);
      return v.state === 'dead_letter' ? v : null;
    }, 60_000);
    expect(dead.lastError).toMatch(
      /^dead-lettered after failing since .*: POST https:\/\/127\.0\.0\.1:\d+\/hookwarden: answered 503/,
    );
    expect(dead.deadLetteredAt).toBeTruthy();
    // Dead-lettered: no more attempts.
    const n = receiver.attempts.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.attempts.length).toBe(n);
    receiver.down = false;
    const firstId = receiver.events.find((e) => e.stream === 'hookRuns')!.id;
    const before = receiver.events.length;
    const replay = await call(api.baseUrl, 'POST', `/v1/streaming/destinations/${id}/replay`, {
      token: api.adminToken,
      body: { fromEventId: firstId },
    });
    expect(replay.status).toBe(200);
    await arrived(ids);
    // Everything from the first event on came again, with the same ids.
    await eventually(sync(() => receiver.events.slice(before).some((e) => e.id === firstId)));
    const audit = await call(api.baseUrl, 'GET', '/v1/audit-log?action=stream_destination.replay', {
      token: api.adminToken,
    });
    expect(audit.body.items).toHaveLength(1);
  }, 120_000);
});
