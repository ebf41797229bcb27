// Fault matrix, real processes end to end: 20,000 records on real agent spools (hook-core's spool writer), uploaded
// by the agent's uploader to the built API and worker while, in turn, the API is killed, the worker is killed, Redis
// (this test's own, without persistence) restarts empty, and PostgreSQL refuses connections (through a proxy this test
// owns; the shared server is never touched); plus poisoned batches. End state: every valid record stored exactly
// once, every poisoned one stored escaped, quarantined or rejected with its reason; nothing staged, nothing lost.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { canonicalJson, listClosedSegments, readSpoolState, sha256Hex, SpoolSink } from '@hookwarden/hook-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../apps/agent-sync/src/client/api-client';
import { SpoolUploader } from '../../apps/agent-sync/src/spool/uploader';
import { createEndpoints, eventually, runRecord, type TestEndpoint } from '../support/audit-factories';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { ownedRedis, type OwnedRedis } from '../support/redis-server';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy';

const ROOT = path.resolve(__dirname, '../..');
const ENDPOINTS = 4;
const PHASES = 5;
const PER_PHASE = Number(process.env.HW_FAULT_MATRIX_PER_PHASE ?? 1000); // per endpoint: 4 × 5 × 1000 = 20,000 records
const TOTAL = ENDPOINTS * PHASES * PER_PHASE;

let db: TestDatabase;
let proxy: TcpProxy;
let redis: OwnedRedis;
let pool: pg.Pool;
let eps: TestEndpoint[];
let env: NodeJS.ProcessEnv;
let baseUrl: string;
let tmp: string;
const procs: { api: Proc | null; worker: Proc | null } = { api: null, worker: null };
const uploaders: SpoolUploader[] = [];
const runs: Promise<void>[] = [];

interface Proc {
  child: ChildProcess;
  output: string[];
}

// A free TCP port on 127.0.0.1.
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

// Starts a built entry point (apps/api/dist/main.js or worker.js), keeping its last output lines for diagnosis.
function start(script: 'main' | 'worker'): Proc {
  const child = spawn(process.execPath, [path.join(ROOT, `apps/api/dist/${script}.js`)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (b: Buffer): void => {
    output.push(b.toString());
    if (output.length > 200) output.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, output };
}

// Kills a process outright (no graceful shutdown: whatever it was doing is cut off).
async function kill(p: Proc | null): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGKILL');
  await exited;
}

// Starts the API and waits until it answers /readyz.
async function startApi(): Promise<void> {
  procs.api = start('main');
  await eventually(async () => (await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok, 60_000);
}

// Stored rows of the endpoints with spools (not the poisoned batches' endpoint).
async function stored(): Promise<number> {
  const res = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM hook_runs WHERE endpoint_id = ANY($1)', [
    eps.slice(0, ENDPOINTS).map((e) => e.id),
  ]);
  return res.rows[0]!.n;
}

// Waits until the stored count satisfies `ok`, failing with the state of every part.
async function waitStored(ok: (n: number) => boolean, timeoutMs: number): Promise<void> {
  await eventually(async () => ok(await stored()), timeoutMs).catch(async (err: Error) => {
    const per = await pool.query(
      'SELECT endpoint_id, count(*)::int AS n, max(seq)::int AS hi FROM hook_runs GROUP BY 1 ORDER BY 1',
    );
    const staged = await pool.query(
      'SELECT id, records, attempts, last_error, next_attempt_at FROM hook_run_uploads ORDER BY received_at',
    );
    const pending = uploaders.map((u) => u.current);
    throw new Error(
      `${err.message}: ${await stored()} stored\nper endpoint ${JSON.stringify(per.rows)}\nstaged ${JSON.stringify(staged.rows)}\npending ${JSON.stringify(pending)}\napi: ${procs.api?.output.slice(-10).join('')}\nworker: ${procs.worker?.output.slice(-30).join('')}`,
    );
  });
}

// Appends one phase of records to every endpoint's spool (hook-core's writer: sequence, chain, fsync).
async function spoolPhase(phase: number): Promise<void> {
  await Promise.all(
    eps.map(async (ep, i) => {
      const sink = new SpoolSink(path.join(tmp, `spool-${i}`), { maxSegmentBytes: 256 * 1024 });
      for (let k = 0; k < PER_PHASE; k += 250) {
        const drafts = Array.from({ length: Math.min(250, PER_PHASE - k) }, () => {
          const { seq: _s, prevHash: _p, ...draft } = runRecord({ seq: 1, sessionId: `s-${ep.id}-${phase}` });
          return draft;
        });
        await sink.write(drafts);
      }
    }),
  );
}

// Waits until every spool is empty (all its records accepted with 202 and deleted by the uploader).
async function spoolsDrained(timeoutMs = 60_000): Promise<void> {
  await eventually(async () => {
    for (let i = 0; i < ENDPOINTS; i++) {
      const dir = path.join(tmp, `spool-${i}`);
      const state = await readSpoolState(dir);
      if (state.open || (await listClosedSegments(dir)).length > 0) return false;
    }
    return true;
  }, timeoutMs);
}

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await tcpProxy(5432);
  redis = await ownedRedis({ persist: false });
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  eps = await createEndpoints(db.url, ENDPOINTS + 1);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-fault-matrix-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const url = new URL(db.url);
  url.port = String(proxy.port);
  env = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: url.toString(),
    REDIS_URL: redis.url,
    REDIS_PREFIX: `hwfault:${randomBytes(4).toString('hex')}`,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    HOOKWARDEN_BOOTSTRAP_TOKEN: `hwt_test_${randomBytes(24).toString('base64url')}`,
    HOOK_RUN_DRAIN_INTERVAL_SEC: '1',
    HOOK_RUN_INGEST_CONCURRENCY: '2',
    DATABASE_POOL_MAX: '4',
  };
  await startApi();
  procs.worker = start('worker');
  for (let i = 0; i < ENDPOINTS; i++) {
    const uploader = new SpoolUploader({
      spoolDir: path.join(tmp, `spool-${i}`),
      client: new ApiClient({ baseUrl, credential: eps[i]!.credential, timeoutMs: 10_000 }),
      maxBatchRecords: 500,
      sealAfterMs: 100,
      intervalMs: 100,
      maxBackoffMs: 1000,
    });
    uploaders.push(uploader);
  }
}, 120_000);

afterAll(async () => {
  for (const u of uploaders) u.stop();
  await Promise.allSettled(runs);
  await kill(procs.api);
  await kill(procs.worker);
  await proxy?.close();
  await redis?.stop();
  await pool?.end();
  await db?.drop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('hook-run evidence under faults', () => {
  it('stores every valid record exactly once through API and worker kills, an empty Redis and a database outage', async () => {
    const alive = (p: Proc | null): boolean => !!p && p.child.exitCode === null && p.child.signalCode === null;
    const diagnose = (): string =>
      `api: ${procs.api?.output.slice(-20).join('')}\nworker: ${procs.worker?.output.slice(-20).join('')}`;
    try {
      // Phase 1: normal operation, uploads running.
      await spoolPhase(1);
      for (const u of uploaders) runs.push(u.run());
      await waitStored((n) => n > 0, 60_000);

      // Phase 2: the API is killed mid-upload, then comes back.
      await spoolPhase(2);
      await new Promise((r) => setTimeout(r, 300));
      await kill(procs.api);
      await new Promise((r) => setTimeout(r, 1000));
      await startApi();

      // Phase 3: the worker is killed mid-ingest, then comes back.
      await spoolPhase(3);
      await waitStored((n) => n > 2 * ENDPOINTS * PER_PHASE, 90_000);
      await kill(procs.worker);
      await new Promise((r) => setTimeout(r, 1000));
      procs.worker = start('worker');

      // Phase 4: with the worker stopped, uploads are accepted (spools emptied); Redis then restarts empty.
      await waitStored((n) => n === 3 * ENDPOINTS * PER_PHASE, 90_000);
      await kill(procs.worker);
      await spoolPhase(4);
      await spoolsDrained();
      const accepted = await pool.query<{ n: number }>(
        'SELECT coalesce(sum(records), 0)::int AS n FROM hook_run_uploads',
      );
      // Durable before 202, waiting for a worker (a batch re-sent after a lost answer may be staged twice: it is stored once).
      expect(accepted.rows[0]!.n).toBeGreaterThanOrEqual(ENDPOINTS * PER_PHASE);
      await redis.stop();
      await redis.start();
      procs.worker = start('worker');

      // Phase 5: PostgreSQL refuses connections for a few seconds while uploads and ingest run.
      await spoolPhase(5);
      await new Promise((r) => setTimeout(r, 300));
      await proxy.refuse();
      await new Promise((r) => setTimeout(r, 4000));
      expect(alive(procs.worker), diagnose()).toBe(true);
      expect(alive(procs.api), diagnose()).toBe(true);
      await proxy.restore();

      // Poisoned batches from a fifth endpoint: text PostgreSQL cannot store (kept escaped), a time it cannot store
      // (rejected with 400 naming line and field), a record PostgreSQL refuses in the worker (quarantined).
      const ep = eps[ENDPOINTS]!;
      let prev: string | null = null;
      const chained = (recs: Array<Record<string, unknown>>, from: number): string[] =>
        recs.map((r, i) => {
          const line = canonicalJson({ ...r, id: randomUUID(), seq: from + i, prevHash: prev });
          prev = sha256Hex(line);
          return line;
        });
      const post = (lines: string[]): Promise<Response> =>
        fetch(`${baseUrl}/v1/agent/hook-runs`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ep.credential}`,
            'content-type': 'application/x-ndjson',
            'content-encoding': 'gzip',
          },
          body: gzipSync(lines.join('\n')),
        });
      await pool.query(`ALTER TABLE hook_runs ADD CONSTRAINT fm_poison CHECK (session_id IS DISTINCT FROM 'refused')`);
      const poisoned = chained(
        [
          runRecord({ seq: 1 }),
          { ...runRecord({ seq: 1 }), sessionId: 'nul\u0000' },
          { ...runRecord({ seq: 1 }), turnId: '\udc00lone' },
          runRecord({ seq: 1, sessionId: 'refused' }),
          runRecord({ seq: 1 }),
        ],
        1,
      );
      expect(await eventually(async () => ((await post(poisoned)).status === 202 ? 202 : null), 30_000)).toBe(202);
      const badTime = await post(chained([{ ...runRecord({ seq: 1 }), startedAt: '1969-07-20T20:17:00.000Z' }], 6));
      expect(badTime.status).toBe(400);
      expect(((await badTime.json()) as { error: { message: string } }).error.message).toMatch(
        /^line 1: \$\.startedAt: time out of range/,
      );

      // End state.
      await waitStored((n) => n === TOTAL, 120_000);
      await eventually(
        async () =>
          (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM hook_runs WHERE endpoint_id = $1', [ep.id]))
            .rows[0]!.n === 4,
        30_000,
      );
      await pool.query('ALTER TABLE hook_runs DROP CONSTRAINT fm_poison');
      const perEndpoint = await pool.query<{
        endpoint_id: string;
        n: number;
        d: number;
        ids: number;
        lo: number;
        hi: number;
      }>(
        `SELECT endpoint_id, count(*)::int AS n, count(DISTINCT seq)::int AS d, count(DISTINCT id)::int AS ids,
                min(seq)::int AS lo, max(seq)::int AS hi
           FROM hook_runs GROUP BY endpoint_id`,
      );
      const byEp = new Map(perEndpoint.rows.map((r) => [r.endpoint_id, r]));
      for (const e of eps.slice(0, ENDPOINTS)) {
        expect(byEp.get(e.id)).toEqual({
          endpoint_id: e.id,
          n: PHASES * PER_PHASE,
          d: PHASES * PER_PHASE,
          ids: PHASES * PER_PHASE,
          lo: 1,
          hi: PHASES * PER_PHASE,
        });
      }
      // The poisoned batch: 4 stored (two of them escaped), 1 quarantined with its error, the bad time never accepted.
      const poison = await pool.query<{ seq: number; escaped: boolean }>(
        'SELECT seq::int AS seq, escaped FROM hook_runs WHERE endpoint_id = $1 ORDER BY seq',
        [ep.id],
      );
      expect(poison.rows).toEqual([
        { seq: 1, escaped: false },
        { seq: 2, escaped: true },
        { seq: 3, escaped: true },
        { seq: 5, escaped: false },
      ]);
      const q = await pool.query<{ seq: number; sqlstate: string }>(
        'SELECT seq::int AS seq, sqlstate FROM hook_run_quarantine WHERE endpoint_id = $1',
        [ep.id],
      );
      expect(q.rows).toEqual([{ seq: 4, sqlstate: '23514' }]);
      const findings = await pool.query<{ kind: string; endpoint_id: string }>(
        `SELECT kind, endpoint_id FROM hook_run_findings WHERE resolved_at IS NULL AND kind <> 'quarantined'`,
      );
      expect(findings.rows).toEqual([]);
      const left = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM hook_run_uploads');
      expect(left.rows[0]!.n).toBe(0);
      expect(alive(procs.api) && alive(procs.worker), diagnose()).toBe(true);
    } finally {
      await pool.query('ALTER TABLE hook_runs DROP CONSTRAINT IF EXISTS fm_poison').catch(() => undefined);
    }
  }, 300_000);
});
