// bench/scale (`npm run bench:scale`): the HA topology at fleet size. HAProxy in front of 3 API instances; N simulated
// agents (default 30,000; `--agents N` for a quick run) speaking the signed agent protocol hold long polls across the
// instances; a release fans out to all of them (p50/p99 delivery), with each instance's RSS while holding them. Then
// hook-run ingest throughput: uploads staged with no worker running, drained by 1 worker, then (fresh uploads) by 2.
// Needs `npm run build`, haproxy, PostgreSQL and Redis on their default ports. Loopback only.
//
// File descriptors: every child is started with `ulimit -n` raised (to the hard limit when that is lower). One
// HAProxy process holds two descriptors per poll, so when the hard limit is below what N needs, the bench runs
// several HAProxy processes bound to the same port (SO_REUSEPORT, the kernel spreads connections), like several
// load-balancer nodes. Clients use several loopback source addresses so N connections fit the ephemeral port range.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { canonicalJson, endpointKeyId, endpointPublicKeyPem, sha256Hex } from '@hookwarden/hook-core';
import { createDatabase, dbUrl, dropDatabase, freePort, sql } from '../lib.mjs';
import { killProcess, ready, spawnLimited, startHaproxy, startNode, until } from '../../test/support/ha/haproxy.mjs';
import { startMonitor } from './monitor.mjs';

const { values: opts } = parseArgs({
  options: {
    agents: { type: 'string', default: '30000' },
    records: { type: 'string', default: '100000' },
    'no-ingest': { type: 'boolean', default: false },
    // Diagnosis: seconds to keep the polls held (agents re-polling) after every poll is held, before the release.
    soak: { type: 'string', default: '0' },
    // Diagnosis: a new connection for every request (as the bench did before 2026-12-07) instead of one kept-alive
    // connection per agent (as hookwarden-agent does).
    'connection-per-request': { type: 'boolean', default: false },
  },
});
const AGENTS = Number(opts.agents);
const RECORDS = Number(opts.records);
const FD_LIMIT = 200_000;
const HARD_LIMIT = Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || 1024;
const EFFECTIVE_FDS = Math.min(FD_LIMIT, HARD_LIMIT);
/** Polls one HAProxy process carries (two descriptors each, plus headroom). */
const PER_HAPROXY = Math.floor((EFFECTIVE_FDS - 500) / 2);
/** Polls one load process holds. */
const PER_LOAD = Math.min(8000, EFFECTIVE_FDS - 500);
/** The API's agent session lifetime (its default); the load processes renew sessions a minute before. */
const SESSION_TTL_SEC = 600;
const TOKEN = `hwt_bench_${randomBytes(24).toString('base64url')}`;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-bench-scale-'));
const procs = [];
const log = (...a) => console.error('[bench:scale]', ...a);
const now = () => performance.timeOrigin + performance.now();

// JSON request with the admin token.
async function api(base, method, p, body) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// Resident memory of a process in MB.
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// The percentile `p` of sorted numbers.
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// Long polls an instance holds (its /metrics).
async function held(url) {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return Number(/^hookwarden_long_polls_held (\d+)/m.exec(text)?.[1] ?? 0);
}

// Latencies are counted from t0, the moment the release request is sent (the load processes learn it 200 ms ahead).
// Starts a load process and returns a line messenger.
function startLoad() {
  const proc = spawnLimited(process.execPath, ['bench/scale/load.mjs'], { fdLimit: FD_LIMIT, stdin: 'pipe' });
  procs.push(proc);
  proc.child.stderr.on('data', (b) => process.stderr.write(b));
  const rl = readline.createInterface({ input: proc.child.stdout });
  const waiters = [];
  rl.on('line', (line) => {
    const msg = JSON.parse(line);
    const i = waiters.findIndex((w) => w.event === msg.event);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(msg);
  });
  return {
    proc,
    send: (o) => proc.child.stdin.write(JSON.stringify(o) + '\n'),
    wait: (event) => new Promise((resolve) => waiters.push({ event, resolve })),
  };
}

// One hook-run record (the shape hook-core's spool writes), chained to `prevHash`.
function record(seq, prevHash, session) {
  const at = new Date().toISOString();
  return {
    schemaVersion: 1,
    id: crypto.randomUUID(),
    recordedAt: at,
    dispatchId: crypto.randomUUID(),
    sessionId: session,
    turnId: 'turn-1',
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
    startedAt: at,
    durationMs: 12,
    exitCode: 0,
    signal: null,
    timedOut: false,
    verdict: 'json',
    error: null,
    decision: null,
    effect: 'none',
    reason: null,
    stdout: { bytes: 2, truncated: false, sha256: 'a'.repeat(64), excerpt: 'ok' },
    stderr: null,
    spillPath: null,
    policy: { revision: '1', digest: `sha256:${'ab'.repeat(32)}` },
    seq,
    prevHash,
  };
}

// Stages `total` records from fresh legacy endpoints through HAProxy (500 a batch, 8 uploads at once); returns their ids.
async function stageUploads(db, base, groupId, total) {
  const endpoints = 20;
  const creds = Array.from({ length: endpoints }, () => `hwe_${randomBytes(32).toString('base64url')}`);
  const rows = await sql(
    dbUrl(db),
    `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
     SELECT gen_random_uuid(), $1::uuid, 'ingest-' || gen_random_uuid(), 'ingest-host-' || i, 'linux', '0.1.0', h
     FROM unnest($2::text[]) WITH ORDINALITY AS t(h, i) RETURNING id`,
    [groupId, creds.map((c) => createHash('sha256').update(c).digest('hex'))],
  );
  const per = Math.ceil(total / endpoints);
  const batches = [];
  for (let e = 0; e < endpoints; e++) {
    let prev = null;
    for (let s = 1; s <= per; s += 500) {
      const lines = [];
      for (let q = s; q < Math.min(s + 500, per + 1); q++) {
        const line = canonicalJson(record(q, prev, `bench-${e}`));
        prev = sha256Hex(line);
        lines.push(line);
      }
      batches.push({ cred: creds[e], body: gzipSync(lines.join('\n')) });
    }
  }
  let next = 0;
  let dropped = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        const b = batches[next++];
        for (;;) {
          // A dropped connection is retried like a 503, as the agent retries an upload (counted and reported).
          const res = await fetch(`${base}/v1/agent/hook-runs`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${b.cred}`,
              'content-type': 'application/x-ndjson',
              'content-encoding': 'gzip',
            },
            body: b.body,
          }).catch((err) => {
            dropped++;
            log(`upload: ${err.message} (${err.cause?.message ?? ''}); retried`);
            return null;
          });
          if (!res) {
            await new Promise((r) => setTimeout(r, 500));
            continue;
          }
          await res.text();
          if (res.status === 202) break;
          if (res.status !== 429 && res.status !== 503) throw new Error(`upload: ${res.status}`);
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    }),
  );
  return { ids: rows.map((r) => r.id), count: per * endpoints, dropped };
}

// Starts `n` workers and measures records/s from the first stored row of `ids` to the last.
async function drainWith(db, env, n, ids, count) {
  const stored = async () =>
    Number((await sql(dbUrl(db), 'SELECT count(*)::int AS n FROM hook_runs WHERE endpoint_id = ANY($1)', [ids]))[0].n);
  const workers = Array.from({ length: n }, () => startNode('worker', env, FD_LIMIT));
  procs.push(...workers);
  let first = null;
  let firstCount = 0;
  for (;;) {
    const c = await stored();
    if (c > 0 && first === null) {
      first = now();
      firstCount = c;
    }
    if (c >= count) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (now() - first) / 1000;
  await Promise.all(workers.map((w) => killProcess(w, 'SIGTERM')));
  return { perSec: (count - firstCount) / seconds, seconds };
}

async function main() {
  const db = await createDatabase();
  const proxyPort = await freePort();
  const ports = [await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${proxyPort}`;
  const env = {
    ...process.env,
    DATABASE_URL: dbUrl(db),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    REDIS_PREFIX: `hwbench:${randomBytes(4).toString('hex')}`,
    HOOKWARDEN_BOOTSTRAP_TOKEN: TOKEN,
    HOOKWARDEN_KEK: randomBytes(32).toString('base64'),
    HOOKWARDEN_CURSOR_SECRET: randomBytes(32).toString('hex'),
    TRUST_PROXY: 'loopback',
    AGENT_SESSION_TTL_SEC: String(SESSION_TTL_SEC),
    BUNDLE_MAX_WAITERS: String(AGENTS + 1000),
    HOOK_RUN_INGEST_MAX_WAITING: '100000',
  };
  try {
    const apis = ports.map((port) => startNode('main', { ...env, PORT: String(port) }, FD_LIMIT));
    procs.push(...apis);
    const nProxies = Math.max(1, Math.ceil((AGENTS + 2000) / PER_HAPROXY));
    const statSockets = Array.from({ length: nProxies }, (_, i) => path.join(tmp, `haproxy-${i}.sock`));
    const proxies = statSockets.map((statsSocket, i) =>
      startHaproxy({
        dir: tmp,
        name: `haproxy-${i}`,
        port: proxyPort,
        servers: ports.map((port, k) => ({ name: `api${k}`, port })),
        maxconn: PER_HAPROXY,
        fdLimit: FD_LIMIT,
        statsSocket,
        errorLog: true,
      }),
    );
    procs.push(...proxies);
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    await Promise.all(urls.map((u) => until(() => ready(u), 180_000, `API ${u}`)));
    await until(() => ready(base), 30_000, 'HAProxy');
    log(`3 API instances behind ${nProxies} HAProxy process(es) (fd hard limit ${HARD_LIMIT}); ${AGENTS} agents`);

    const group = await api(base, 'POST', '/v1/groups', { name: `scale-${randomBytes(3).toString('hex')}` });
    const policy = await api(base, 'POST', '/v1/policies', { name: `scale-${group.id}`, groupId: group.id });
    const files = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 }];
    const toml = (m) =>
      `[hooks]\nmanaged_dir = "/opt/hookwarden/hooks"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "/opt/hookwarden/hooks/check.sh ${m}"\n`;
    const v1 = await api(base, 'POST', `/v1/policies/${policy.id}/versions`, {
      toml: toml('v1'),
      files,
      baseVersion: 0,
    });
    const v2 = await api(base, 'POST', `/v1/policies/${policy.id}/versions`, {
      toml: toml('v2'),
      files,
      baseVersion: 1,
    });
    await api(base, 'POST', `/v1/groups/${group.id}/releases`, { policyVersionId: v1.id });

    // N endpoints with their own Ed25519 keys, inserted in bulk (enrollment itself is covered by the tests).
    const t = now();
    const agents = Array.from({ length: AGENTS }, () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      return {
        keyId: endpointKeyId(publicKey),
        publicPem: endpointPublicKeyPem(publicKey),
        pem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      };
    });
    for (let i = 0; i < AGENTS; i += 5000) {
      const chunk = agents.slice(i, i + 5000);
      await sql(
        dbUrl(db),
        `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, public_key, key_id, key_at)
         SELECT gen_random_uuid(), $1::uuid, 'scale-' || ($4::int + k), 'scale-host-' || ($4::int + k), 'linux',
                '0.1.0', pk, kid, now()
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(pk, kid, k)`,
        [group.id, chunk.map((a) => a.publicPem), chunk.map((a) => a.keyId), i],
      );
    }
    log(`keys and endpoints ready in ${((now() - t) / 1000).toFixed(1)} s`);

    const stopMonitor = startMonitor({
      log,
      proxyPort,
      apiPorts: ports,
      apis,
      proxies,
      sockets: statSockets,
      held,
    });
    const nLoads = Math.max(1, Math.ceil(AGENTS / PER_LOAD));
    const loads = Array.from({ length: nLoads }, () => startLoad());
    const sources = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
    const tHold = now();
    loads.forEach((l, i) => {
      const mine = agents.filter((_, k) => k % nLoads === i).map((a) => ({ keyId: a.keyId, pem: a.pem }));
      l.send({
        url: base,
        agents: mine,
        sources,
        keepAlive: !opts['connection-per-request'],
        sessionTtlMs: SESSION_TTL_SEC * 1000,
      });
    });
    const heldMsgs = await Promise.all(loads.map((l) => l.wait('held')));
    const failed = heldMsgs.reduce((s, m) => s + m.failed, 0);
    const expected = AGENTS - failed;
    let perInstance = [];
    let shown = 0;
    await until(
      async () => {
        perInstance = await Promise.all(urls.map(held));
        if (Date.now() - shown > 10_000) {
          shown = Date.now();
          log(`polls held so far: ${perInstance.join('/')}`);
        }
        // Agents poll again as soon as a poll ends, so all but the few between two polls are held.
        return perInstance.reduce((a, b) => a + b, 0) >= Math.floor(expected * 0.99);
      },
      300_000,
      'every poll held',
    );
    log(
      `${expected} polls held (${perInstance.join('/')}) after ${((now() - tHold) / 1000).toFixed(0)} s; ${failed} agents failed`,
    );
    await new Promise((r) => setTimeout(r, 3000 + Number(opts.soak) * 1000));
    const rss = apis.map((p) => rssMb(p.child.pid));

    // The load processes learn t0 before the release is made (a poll woken before they knew it would be missed).
    const t0 = now() + 200;
    loads.forEach((l) => l.send({ t0 }));
    await new Promise((r) => setTimeout(r, t0 - now()));
    await api(base, 'POST', `/v1/groups/${group.id}/releases`, { policyVersionId: v2.id });
    const done = await Promise.all(loads.map((l) => l.wait('done')));
    const lat = done.flatMap((d) => d.latencies).sort((a, b) => a - b);
    const errors = done.reduce((s, d) => s + d.errors, 0);
    stopMonitor();
    log(
      `fan-out p50/p99/max ${pct(lat, 50).toFixed(0)}/${pct(lat, 99).toFixed(0)}/${lat[lat.length - 1].toFixed(0)} ms (${lat.length} delivered, ${errors} not); RSS ${rss.map((m) => m.toFixed(0)).join('/')} MB`,
    );
    await Promise.all(loads.map((l) => killProcess(l.proc)));

    let ingest = null;
    if (!opts['no-ingest']) {
      const one = await stageUploads(db, base, group.id, RECORDS);
      const w1 = await drainWith(db, env, 1, one.ids, one.count);
      log(`1 worker: ${w1.perSec.toFixed(0)} records/s (${one.dropped} uploads retried after a dropped connection)`);
      const two = await stageUploads(db, base, group.id, RECORDS);
      const w2 = await drainWith(db, env, 2, two.ids, two.count);
      log(`2 workers: ${w2.perSec.toFixed(0)} records/s (${two.dropped} uploads retried after a dropped connection)`);
      ingest = { records: one.count, one: w1.perSec, two: w2.perSec, ratio: w2.perSec / w1.perSec };
    }

    const row = (k, v) => console.log(`| ${k} | ${v} |`);
    console.log(`\n## bench:scale (${AGENTS} agents, 3 API instances behind HAProxy, loopback, this machine)\n`);
    console.log('| measure | value |\n|---|---|');
    row('long polls held per instance', perInstance.join(' / '));
    row(
      'release fan-out p50 / p99 / max',
      `${pct(lat, 50).toFixed(0)} / ${pct(lat, 99).toFixed(0)} / ${lat[lat.length - 1].toFixed(0)} ms (${lat.length} delivered, ${errors} not)`,
    );
    row('API RSS per instance while holding', rss.map((m) => `${m.toFixed(0)} MB`).join(' / '));
    if (ingest) {
      row(`hook-run ingest, 1 worker (${ingest.records} records)`, `${ingest.one.toFixed(0)} records/s`);
      row(`hook-run ingest, 2 workers (${ingest.records} records)`, `${ingest.two.toFixed(0)} records/s`);
      row('2 workers / 1 worker', `${ingest.ratio.toFixed(2)}×`);
    }
  } finally {
    await Promise.all(procs.map((p) => killProcess(p)));
    await dropDatabase(db);
    rmSync(tmp, { recursive: true, force: true });
  }
}

// Ctrl-C or SIGTERM: every child is killed first.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const p of procs) p.child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    process.exit(130);
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
