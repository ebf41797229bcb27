// bench/sync: long-poll delivery to N simulated agents (1,000 and 10,000) vs a bare Node server, API memory while
// holding them, and authenticated 304 revalidation throughput vs nginx serving the same bundle with an ETag.
// Run with `npm run bench:sync` after `npm run build`. Loopback only. Needs wrk; nginx is the 304 reference (apt-get
// install nginx wrk; without nginx its rows are skipped with a line and the nginx target is not judged).
// Knobs: BENCH_AGENTS (held polls per round, default 1000,10000; "none" skips the long-poll rounds),
// BENCH_WRK_SECONDS (default 8), BENCH_SYNC_NODE_ARGS (node flags for the API, e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/prof`: the API is stopped with SIGTERM at the end so the profile is written),
// BENCH_SYNC_API_ENTRY (another build's apps/api/dist/main.js, e.g. of a main checkout: before/after figures).
import { execFileSync, spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  contentDigest,
  endpointKeyId,
  endpointPublicKeyPem,
  newSessionEphemeral,
  openSessionKey,
  signRequest,
} from '@hookwarden/hook-core';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ADMIN_URL, createDatabase, dbUrl, freePort, root, sql } from '../lib.mjs';

const AGENT_COUNTS =
  process.env.BENCH_AGENTS === 'none' ? [] : (process.env.BENCH_AGENTS ?? '1000,10000').split(',').map(Number);
const API_NODE_ARGS = (process.env.BENCH_SYNC_NODE_ARGS ?? '').split(' ').filter(Boolean);
const API_ENTRY = process.env.BENCH_SYNC_API_ENTRY ?? 'apps/api/dist/main.js';
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 8);
const TOKEN = `hwt_bench_${randomBytes(24).toString('base64url')}`;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-bench-sync-'));
const children = [];
const now = () => performance.timeOrigin + performance.now();
const log = (...a) => console.error('[bench:sync]', ...a);

// Spawns a command with the open-file limit raised to 20,000.
function spawnWithLimit(cmd, env = {}) {
  const child = spawn('sh', ['-c', `ulimit -n 20000 && exec ${cmd}`], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  return child;
}

// JSON request against the API with the admin token.
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

// CPU seconds a process has used (user + system).
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

// Waits until a process is idle (< 5% of a CPU over a second): the held requests have all been taken in.
async function waitIdle(pid, maxMs = 180_000) {
  const end = Date.now() + maxMs;
  for (;;) {
    const a = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (cpuSeconds(pid) - a < 0.05 || Date.now() > end) return;
  }
}

// Starts the load process and returns a line-based messenger.
function startLoad() {
  const child = spawnWithLimit(`${process.execPath} bench/sync/load.mjs`);
  const rl = readline.createInterface({ input: child.stdout });
  const waiters = [];
  rl.on('line', (line) => {
    const msg = JSON.parse(line);
    const i = waiters.findIndex((w) => w.event === msg.event);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(msg);
  });
  return {
    send: (o) => child.stdin.write(JSON.stringify(o) + '\n'),
    wait: (event) => new Promise((resolve) => waiters.push({ event, resolve })),
    stop: () => child.kill('SIGKILL'),
  };
}

// Requests/sec from wrk against a URL with headers (or a Lua script and its arguments) for `seconds`.
function wrk(url, headers, script = null, seconds = WRK_SECONDS) {
  const args = ['-t2', '-c100', `-d${seconds}s`, ...headers.flatMap(([k, v]) => ['-H', `${k}: ${v}`])];
  if (script) args.push('-s', script.file, url, '--', ...script.args);
  else args.push(url);
  const out = execFileSync('wrk', args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, non2xx };
}

// Starts nginx serving `file` at /bundle.json on a loopback port; returns its URL.
async function startNginx(body, workers) {
  const dir = path.join(tmp, `nginx-${workers}`);
  mkdirSync(path.join(dir, 'www'), { recursive: true });
  writeFileSync(path.join(dir, 'www/bundle.json'), body);
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `user root; worker_processes ${workers}; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}/cb; proxy_temp_path ${dir}/px; fastcgi_temp_path ${dir}/fc;
  uwsgi_temp_path ${dir}/uw; scgi_temp_path ${dir}/sc; default_type application/json;
  server { listen 127.0.0.1:${port}; root ${dir}/www; location / { etag on; } } }
`,
  );
  const child = spawnWithLimit(`nginx -c ${conf}`);
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/bundle.json`);
      if (r.ok) return { url: `http://127.0.0.1:${port}/bundle.json`, etag: r.headers.get('etag'), child };
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('nginx did not start');
}

// True when a command is on PATH.
function have(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Waits for a child to exit (true) or gives up after `ms` (false).
function exited(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

async function main() {
  if (!have('wrk')) throw new Error('bench:sync needs wrk (apt-get install wrk)');
  const dbName = await createDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const apiProc = spawnWithLimit(`${process.execPath} ${API_NODE_ARGS.join(' ')} ${API_ENTRY}`, {
    DATABASE_URL: dbUrl(dbName),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    REDIS_PREFIX: `hwbench:${randomBytes(4).toString('hex')}`,
    HOOKWARDEN_BOOTSTRAP_TOKEN: TOKEN,
    NODE_ENV: 'production',
    HOOKWARDEN_KEK: randomBytes(32).toString('base64'),
  });
  apiProc.stdout.resume();
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) {
        await api(base, 'GET', '/v1/groups');
        break;
      }
    } catch {
      // starting
    }
    if (i > 300) throw new Error('API did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  log('API ready on', base);
  const script = { path: 'check.sh', content: '#!/bin/sh\nexit 0\n' + '#'.repeat(600) + '\n', mode: 0o755 };
  const toml = (m) =>
    `[hooks]\nmanaged_dir = "/opt/hookwarden/hooks"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "/opt/hookwarden/hooks/check.sh ${m}"\n`;
  // A group with two versions of a policy, the first released; `n` enrolled endpoints with known bearer credentials,
  // written in bulk (enrollment itself is covered by the tests).
  const makeGroup = async (name, n) => {
    const group = await api(base, 'POST', '/v1/groups', { name: `${name}-${randomBytes(3).toString('hex')}` });
    const policy = await api(base, 'POST', '/v1/policies', { name: `bench-${group.id}`, groupId: group.id });
    const v1 = await api(base, 'POST', `/v1/policies/${policy.id}/versions`, {
      toml: toml('v1'),
      files: [script],
      baseVersion: 0,
    });
    const v2 = await api(base, 'POST', `/v1/policies/${policy.id}/versions`, {
      toml: toml('v2'),
      files: [script],
      baseVersion: 1,
    });
    const creds = Array.from({ length: n }, () => `hwe_${randomBytes(32).toString('base64url')}`);
    await sql(
      dbUrl(dbName),
      `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
       SELECT gen_random_uuid(), $1::uuid, 'bench-' || $1::text || '-' || i, 'bench-host-' || i, 'linux', '0.1.0', h
       FROM unnest($2::text[]) WITH ORDINALITY AS t(h, i)`,
      [group.id, creds.map((c) => createHash('sha256').update(c).digest('hex'))],
    );
    await api(base, 'POST', `/v1/groups/${group.id}/releases`, { policyVersionId: v1.id ?? v1.version?.id });
    return { group, creds, v2 };
  };

  const rows = [];
  for (const n of AGENT_COUNTS) {
    const { group, creds, v2 } = await makeGroup(`bench-${n}`, n);
    const load = startLoad();
    load.send({ url: base, path: '/v1/agent/bundle', creds, etag: null });
    await load.wait('held');
    await waitIdle(apiProc.pid);
    const heldRss = rssMb(apiProc.pid);
    const t0 = now();
    const rel = await api(base, 'POST', `/v1/groups/${group.id}/releases`, {
      policyVersionId: v2.id ?? v2.version?.id,
    });
    const releaseCallMs = now() - t0;
    load.send({ t0 });
    const done = await load.wait('done');
    load.stop();
    log(`api n=${n}`, done, `rss=${heldRss.toFixed(0)}MB`);

    // The same number of held requests released by a bare Node server (its memory measured the same way).
    const barePort = await freePort();
    const bare = spawnWithLimit(`${process.execPath} bench/sync/bare-server.mjs`, {
      PORT: String(barePort),
      BODY_BYTES: String(Buffer.byteLength(rel.digest) + 1500),
    });
    await new Promise((r) => bare.stdout.once('data', r));
    const bareIdleRss = rssMb(bare.pid);
    const bload = startLoad();
    bload.send({ url: `http://127.0.0.1:${barePort}`, path: '/', creds: creds.map(() => 'x'), etag: '"v1"' });
    await bload.wait('held');
    await waitIdle(bare.pid);
    const bareRss = rssMb(bare.pid);
    const bt0 = now();
    await fetch(`http://127.0.0.1:${barePort}/release`, { method: 'POST' });
    bload.send({ t0: bt0 });
    const bdone = await bload.wait('done');
    bload.stop();
    bare.kill('SIGKILL');
    log(`bare n=${n}`, bdone, `rss=${bareRss.toFixed(0)}MB (idle ${bareIdleRss.toFixed(0)}MB)`);
    rows.push({ n, api: done, bare: bdone, heldRss, bareRss, bareIdleRss, releaseCallMs });
  }

  // 304 revalidation throughput: authenticated API vs nginx with the same bundle bytes.
  const sample = await makeGroup('bench-304', 1);
  const res = await fetch(`${base}/v1/agent/bundle`, { headers: { authorization: `Bearer ${sample.creds[0]}` } });
  const body = Buffer.from(await res.arrayBuffer());
  const etag = res.headers.get('etag');
  // Signed 304s: a keyed endpoint of the same group opens a session; every request is pre-signed with its own nonce
  // (wrk's Lua script reads them, one file per thread), and a control run builds its requests in Lua the same way
  // with the legacy bearer, so the difference is the signature check.
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = endpointKeyId(publicKey);
  await sql(
    dbUrl(dbName),
    `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, public_key, key_id, key_at)
     VALUES (gen_random_uuid(), $1::uuid, 'bench-signed', 'bench-signed', 'linux', '0.1.0', $2, $3, now())`,
    [sample.group.id, endpointPublicKeyPem(publicKey), keyId],
  );
  const eph = newSessionEphemeral();
  const sbody = JSON.stringify({ ephemeralKey: eph.publicKey });
  const sres = await fetch(`${base}/v1/agent/session`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signRequest(
        { method: 'POST', target: '/v1/agent/session', body: sbody },
        { alg: 'ed25519', keyid: keyId, privateKey },
      ),
    },
    body: sbody,
  });
  if (sres.status !== 200) throw new Error(`POST /v1/agent/session: ${sres.status} ${await sres.text()}`);
  const session = await sres.json();
  const skey = openSessionKey(session.sealedKey, eph, session.sessionId);
  // Enough pre-signed requests for the warm-up and the measured run (a replayed one would be answered 401).
  const perThread = Number(process.env.BENCH_SIGNED_PER_THREAD ?? WRK_SECONDS * 25_000);
  const prefix = path.join(tmp, 'signed');
  for (let t = 0; t < 2; t++) {
    const out = [];
    for (let i = 0; i < perThread; i++) {
      const h = signRequest(
        { method: 'GET', target: '/v1/agent/bundle' },
        { alg: 'hmac-sha256', keyid: session.sessionId, secret: skey },
      );
      out.push(`${h['signature-input']}\t${h.signature}`);
    }
    writeFileSync(`${prefix}.${t}`, out.join('\n') + '\n');
  }
  const lua = path.join(root, 'bench/sync/signed-304.lua');
  const bundleUrl = `${base}/v1/agent/bundle`;
  const bearerHeaders = [
    ['Authorization', `Bearer ${sample.creds[0]}`],
    ['If-None-Match', etag],
  ];
  // A short warm-up (JIT, caches, Redis connection) so the first measured run is not the cold one.
  wrk(bundleUrl, bearerHeaders, null, 2);
  const apiWrk = wrk(bundleUrl, bearerHeaders);
  const luaBearerWrk = wrk(bundleUrl, [], { file: lua, args: [prefix, etag, sample.creds[0], 'plain'] });
  const signedWrk = wrk(bundleUrl, [], { file: lua, args: [prefix, etag, contentDigest()] });
  const healthWrk = wrk(`${base}/healthz`, []);
  const plainPort = await freePort();
  const plain = spawnWithLimit(`${process.execPath} bench/sync/bare-server.mjs`, {
    PORT: String(plainPort),
    MODE: '304',
  });
  await new Promise((r) => plain.stdout.once('data', r));
  const plainWrk = wrk(`http://127.0.0.1:${plainPort}/`, [['If-None-Match', '"v1"']]);
  plain.kill('SIGKILL');
  const idleRss = rssMb(apiProc.pid);
  let ngx1Wrk = null;
  let ngxAWrk = null;
  if (have('nginx')) {
    const ngx1 = await startNginx(body, 1);
    ngx1Wrk = wrk(ngx1.url, [['If-None-Match', ngx1.etag]]);
    ngx1.child.kill('SIGTERM');
    const ngxA = await startNginx(body, 'auto');
    ngxAWrk = wrk(ngxA.url, [['If-None-Match', ngxA.etag]]);
    ngxA.child.kill('SIGTERM');
  }

  const f = (x) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(0) : String(x));
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  const lines = [];
  lines.push('');
  lines.push(
    `bench/sync results (loopback, ${os.cpus().length} CPUs, machine load average at start of the report ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')})`,
  );
  lines.push('');
  if (rows.length > 0) {
    lines.push('| agents | server | delivered | p50 ms | p99 ms | max ms | RSS holding the polls |');
    lines.push('|---|---|---|---|---|---|---|');
    for (const r of rows) {
      lines.push(
        `| ${r.n} | API (release call ${f(r.releaseCallMs)} ms) | ${r.api.ok}/${r.n} | ${f(r.api.p50)} | ${f(r.api.p99)} | ${f(r.api.max)} | ${f(r.heldRss)} MB |`,
      );
      lines.push(
        `| ${r.n} | bare Node http | ${r.bare.ok}/${r.n} | ${f(r.bare.p50)} | ${f(r.bare.p99)} | ${f(r.bare.max)} | ${f(r.bareRss)} MB (idle ${f(r.bareIdleRss)} MB) |`,
      );
    }
    lines.push('');
  }
  lines.push(`| 304 revalidation (wrk -t2 -c100 -d${WRK_SECONDS}s) | req/s | non-304 |`);
  lines.push('|---|---|---|');
  lines.push(`| API GET /v1/agent/bundle, legacy bearer (static wrk headers) | ${f(apiWrk.rps)} | ${apiWrk.non2xx} |`);
  lines.push(
    `| API GET /v1/agent/bundle, legacy bearer (requests built in Lua: the control) | ${f(luaBearerWrk.rps)} | ${luaBearerWrk.non2xx} |`,
  );
  lines.push(
    `| API GET /v1/agent/bundle, signed session request (HMAC, Content-Digest, fresh nonce each, Hookwarden-Shadow: none, Lua) | ${f(signedWrk.rps)} | ${signedWrk.non2xx} |`,
  );
  lines.push(`| API GET /healthz, a Nest route without auth, 200 | ${f(healthWrk.rps)} | |`);
  lines.push(`| bare Node http answering 304, no auth | ${f(plainWrk.rps)} | |`);
  if (ngx1Wrk && ngxAWrk) {
    lines.push(`| nginx static file + ETag, 1 worker | ${f(ngx1Wrk.rps)} | |`);
    lines.push(`| nginx static file + ETag, worker_processes auto | ${f(ngxAWrk.rps)} | |`);
  } else {
    lines.push('| nginx static file + ETag | skipped: nginx is not installed (apt-get install nginx) | |');
  }
  lines.push('');
  lines.push('Targets (issue 24, target 5; ratios measured in this run):');
  if (ngxAWrk) {
    const r = signedWrk.rps / ngxAWrk.rps;
    lines.push(`- signed 304 / nginx(auto) = ${r.toFixed(2)}× (target ≥ 0.5×): ${verdict(r >= 0.5)}`);
  } else {
    lines.push('- signed 304 / nginx(auto) (target ≥ 0.5×): not judged, nginx is not installed');
  }
  for (const r of rows) {
    const ratio = r.heldRss / r.bareRss;
    lines.push(
      `- API RSS / bare Node RSS holding ${r.n} polls = ${f(r.heldRss)} / ${f(r.bareRss)} MB = ${ratio.toFixed(2)}× (target ≤ 1.5×): ${verdict(ratio <= 1.5)}`,
    );
  }
  lines.push('References:');
  if (ngx1Wrk) lines.push(`- signed 304 / nginx(1 worker) = ${(signedWrk.rps / ngx1Wrk.rps).toFixed(2)}×`);
  lines.push(`- signed 304 / bare Node 304 = ${(signedWrk.rps / plainWrk.rps).toFixed(2)}×`);
  lines.push(
    `- signed / legacy bearer with the same Lua request building = ${(signedWrk.rps / luaBearerWrk.rps).toFixed(2)}× (the signature check's cost)`,
  );
  lines.push(`- Nest GET /healthz / bare Node 304 = ${(healthWrk.rps / plainWrk.rps).toFixed(2)}×`);
  for (const r of rows) {
    lines.push(
      `- ${r.n} polls: API delivery max / bare Node max = ${(r.api.max / r.bare.max).toFixed(2)}× (p50 ${(r.api.p50 / r.bare.p50).toFixed(2)}×)`,
    );
  }
  lines.push(`- API RSS after the runs: ${f(idleRss)} MB`);
  console.log(lines.join('\n'));
  // SIGTERM (not SIGKILL) so node flags such as --cpu-prof can write their output.
  apiProc.kill('SIGTERM');
  if (!(await exited(apiProc, 20_000))) log('the API did not stop within 20 s after SIGTERM');
  await sql(ADMIN_URL, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
}

// Stops every child process this benchmark started.
function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanup);
