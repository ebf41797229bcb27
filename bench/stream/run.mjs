// bench/stream: records per second streamed to a real rsyslogd (RFC 5424 over TCP) and to a local webhook receiver,
// against the ingest rate of the same run (HTTP uploads → worker → hook_runs), and the largest lag the API reported.
// Goal: the streams keep up with ingest (lag under 5 s). BENCH_STREAM_RECORDS (default 50,000) and
// BENCH_STREAM_ENDPOINTS (8) scale it; the API and worker are the built processes (tsc -b first).
import { execFileSync, spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { createDatabase, dbUrl, dropDatabase, freePort, root, startApi } from '../lib.mjs';

const require = createRequire(import.meta.url);
const say = (m) => console.log(m);
const RECORDS = Number(process.env.BENCH_STREAM_RECORDS ?? 50_000);
const ENDPOINTS = Number(process.env.BENCH_STREAM_ENDPOINTS ?? 8);
const BATCH = 500;
const SECRET = randomBytes(32).toString('hex');
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

if (!existsSync(path.join(root, 'apps/api/dist/worker.js'))) {
  say('building…');
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
}
if (!existsSync('/usr/sbin/rsyslogd')) {
  say('bench:stream needs rsyslogd (apt-get install rsyslog)');
  process.exit(1);
}
const { canonicalJson } = require(path.join(root, 'libs/hook-core/dist/index.js'));

const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-bench-stream-'));
const database = await createDatabase();
const url = dbUrl(database);
const children = [];
let rsyslogd;
let receiver;
const cleanup = async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  if (rsyslogd && rsyslogd.exitCode === null) rsyslogd.kill('SIGTERM');
  receiver?.close();
  await new Promise((r) => setTimeout(r, 500));
  await dropDatabase(database);
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

try {
  // The collector: rsyslogd on a loopback port writing what it receives to a file.
  const syslogPort = await freePort();
  const out = path.join(dir, 'received.log');
  mkdirSync(path.join(dir, 'work'));
  writeFileSync(
    path.join(dir, 'rsyslog.conf'),
    [
      `global(workDirectory="${path.join(dir, 'work')}" maxMessageSize="256k")`,
      'module(load="imtcp" MaxSessions="200")',
      'template(name="raw" type="string" string="%rawmsg%\\n")',
      `ruleset(name="r") { action(type="omfile" file="${out}" template="raw") }`,
      `input(type="imtcp" port="${syslogPort}" address="127.0.0.1" ruleset="r")`,
    ].join('\n'),
  );
  rsyslogd = spawn('/usr/sbin/rsyslogd', ['-n', '-f', path.join(dir, 'rsyslog.conf'), '-i', path.join(dir, 'pid')], {
    stdio: 'ignore',
  });
  // The webhook receiver: verifies the signature, counts the events.
  let webhookEvents = 0;
  let badSignatures = 0;
  receiver = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = String(req.headers['x-hookwarden-timestamp']);
      const want = 'v1=' + createHmac('sha256', SECRET).update(`${ts}.`).update(raw).digest('hex');
      if (!String(req.headers['x-hookwarden-signature']).split(', ').includes(want)) {
        badSignatures++;
        return res.writeHead(401).end();
      }
      webhookEvents += Number(req.headers['x-hookwarden-events']);
      res.writeHead(204).end();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

  // API and worker share the KEK (the worker opens the secrets the API sealed) and the Redis prefix.
  const env = {
    STREAM_POLL_MS: '200',
    HOOK_RUN_INGEST_MAX_WAITING: '100000',
    HOOK_RUN_GAP_GRACE_SEC: '300',
    DATABASE_POOL_MAX: '16',
    HOOKWARDEN_KEK: randomBytes(32).toString('base64'),
    REDIS_PREFIX: `hwbench:${randomBytes(4).toString('hex')}`,
  };
  const api = await startApi(database, env);
  children.push(api.child);
  const worker = spawn(process.execPath, [path.join(root, 'apps/api/dist/worker.js')], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: url, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(worker);

  await api.api('POST', '/v1/streaming/destinations', {
    name: 'bench-syslog',
    target: { type: 'syslog_tcp', host: '127.0.0.1', port: syslogPort },
    streams: { hookRuns: {} },
  });
  await api.api('POST', '/v1/streaming/destinations', {
    name: 'bench-webhook',
    target: { type: 'webhook', url: hookUrl, batch: 'ndjson' },
    secrets: { webhookSecret: SECRET },
    streams: { hookRuns: {} },
  });

  // Endpoints with legacy bearer credentials, and their chained records as gzip NDJSON upload bodies.
  const db = new pg.Pool({ connectionString: url, max: 2 });
  const groupId = (await db.query('SELECT id FROM groups WHERE is_default')).rows[0].id;
  const perEndpoint = Math.ceil(RECORDS / ENDPOINTS);
  const streams = [];
  for (let e = 0; e < ENDPOINTS; e++) {
    const id = randomUUID();
    const credential = `hwe_${randomBytes(32).toString('base64url')}`;
    await db.query(
      `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
       VALUES ($1, $2, $3, 'bench', 'linux', 'bench', $4)`,
      [id, groupId, `bench-${id}`, sha256(credential)],
    );
    const batches = [];
    let prev = null;
    for (let start = 1; start <= perEndpoint; start += BATCH) {
      const lines = [];
      for (let seq = start; seq < Math.min(start + BATCH, perEndpoint + 1); seq++) {
        const t = new Date().toISOString();
        const line = canonicalJson({
          schemaVersion: 1,
          id: randomUUID(),
          recordedAt: t,
          dispatchId: randomUUID(),
          sessionId: 's',
          turnId: 't',
          notes: [],
          event: 'PreToolUse',
          matcherInput: 'Bash',
          hook: {
            key: '/etc/zerotwo/requirements.toml:pre_tool_use:0:0',
            hash: `sha256:${'cd'.repeat(32)}`,
            layer: 'managed',
            sourceFile: '/etc/zerotwo/requirements.toml',
            plugin: null,
            matcher: null,
            managed: true,
            trust: 'managed',
            timeoutSec: 600,
          },
          status: 'ran',
          skipReason: null,
          startedAt: t,
          durationMs: 12,
          exitCode: 0,
          signal: null,
          timedOut: false,
          verdict: 'json',
          error: null,
          decision: seq % 10 === 0 ? 'deny' : null,
          effect: 'none',
          reason: null,
          stdout: { bytes: 2, truncated: false, sha256: 'a'.repeat(64), excerpt: 'ok' },
          stderr: null,
          spillPath: null,
          policy: { revision: '1', digest: `sha256:${'ab'.repeat(32)}` },
          seq,
          prevHash: prev,
        });
        lines.push(line);
        prev = sha256(line);
      }
      batches.push(gzipSync(lines.join('\n') + '\n'));
    }
    streams.push({ credential, batches });
  }
  const total = perEndpoint * ENDPOINTS;
  say(`bench:stream — ${total.toLocaleString()} records from ${ENDPOINTS} endpoints in batches of ${BATCH}`);
  say('(figures measured on a machine shared with other work: compare the rates of this run with each other)');

  const syslogCount = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').length - 1 : 0);
  const stored = async () =>
    Number(
      (await db.query('SELECT coalesce(sum(n), 0) AS n FROM hook_run_hourly WHERE group_id = $1', [groupId])).rows[0].n,
    );
  // Streaming lag from this run's own samples: when a destination has delivered n records, how long ago the store
  // first held n (the API's lagSec also counts the ingest backlog: it measures from when an upload was accepted).
  let maxLag = 0;
  const streamLag = { syslog: 0, webhook: 0 };
  const storedAt = []; // [time, stored count]
  let sampling = true;
  const since = (n) => {
    const first = storedAt.find(([, c]) => c >= n);
    return first ? first[0] : null;
  };
  const sampler = (async () => {
    while (sampling) {
      const now = performance.now();
      storedAt.push([now, await stored()]);
      for (const [k, n] of [
        ['syslog', syslogCount()],
        ['webhook', webhookEvents],
      ]) {
        // Undelivered records exist once the store holds more than n: the oldest of them was stored when it first
        // held n + 1.
        const t = since(n + 1);
        if (t !== null) streamLag[k] = Math.max(streamLag[k], (now - t) / 1000);
      }
      const d = await api.api('GET', '/v1/streaming/destinations');
      for (const x of d.items) maxLag = Math.max(maxLag, x.lagSec);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();

  const t0 = performance.now();
  await Promise.all(
    streams.map(async ({ credential, batches }) => {
      for (const body of batches) {
        for (;;) {
          const res = await fetch(`${api.base}/v1/agent/hook-runs`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${credential}`,
              'content-type': 'application/x-ndjson',
              'content-encoding': 'gzip',
            },
            body,
          });
          await res.arrayBuffer();
          if (res.status === 202) break;
          await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
        }
      }
    }),
  );
  let tIngest = 0;
  let tSyslog = 0;
  let tHook = 0;
  for (;;) {
    const now = performance.now();
    if (!tIngest && (await stored()) >= total) tIngest = now;
    if (!tSyslog && syslogCount() >= total) tSyslog = now;
    if (!tHook && webhookEvents >= total) tHook = now;
    if (tIngest && tSyslog && tHook) break;
    if (now - t0 > 600_000)
      throw new Error(`timed out: stored ${await stored()}, syslog ${syslogCount()}, webhook ${webhookEvents}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  sampling = false;
  await sampler;
  const rate = (t) => Math.round(total / ((t - t0) / 1000));
  say(`ingest (stored):      ${rate(tIngest).toLocaleString()} records/s   (${((tIngest - t0) / 1000).toFixed(1)} s)`);
  say(
    `syslog (rsyslogd):    ${rate(tSyslog).toLocaleString()} records/s   (all delivered ${((tSyslog - tIngest) / 1000).toFixed(1)} s after ingest finished)`,
  );
  say(
    `webhook (signed):     ${rate(tHook).toLocaleString()} records/s   (all delivered ${((tHook - tIngest) / 1000).toFixed(1)} s after ingest finished)`,
  );
  say(
    `largest streaming lag (stored → delivered): syslog ${streamLag.syslog.toFixed(1)} s, webhook ${streamLag.webhook.toFixed(1)} s (goal < 5 s)`,
  );
  say(`largest lagSec the API reported (accepted upload → delivered, ingest backlog included): ${maxLag.toFixed(1)} s`);
  say(
    `ratios: syslog/ingest ${(rate(tSyslog) / rate(tIngest)).toFixed(2)}, webhook/ingest ${(rate(tHook) / rate(tIngest)).toFixed(2)}; bad signatures: ${badSignatures}`,
  );
  await db.end();
} finally {
  await cleanup();
}
