// bench/inventory: inventory ingest for N endpoints × H hooks each (default 10,000 × 50) through the real API
// (gzip uploads from simulated agents, C at a time), against the physical reference of PostgreSQL COPY writing the
// same rows into copies of the same tables; then the release impact preview for the N-endpoint group
// (allow_managed_hooks_only on, so every user/project/plugin hook is counted), p50/p95 over several runs.
// Run with `npm run bench:inventory` after `npm run build`. Loopback only.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { createDatabase, dbUrl, dropDatabase, pct, root, sql, startApi } from '../lib.mjs';

const require = createRequire(import.meta.url);
const { inventoryDigest } = require(path.join(root, 'libs/hook-core/dist/index.js'));
const ENDPOINTS = Number(process.env.BENCH_INV_ENDPOINTS ?? 10_000);
const HOOKS = Number(process.env.BENCH_INV_HOOKS ?? 50);
const CONCURRENCY = Number(process.env.BENCH_INV_CONCURRENCY ?? 32);
const PREVIEW_RUNS = Number(process.env.BENCH_INV_PREVIEW_RUNS ?? 7);
/** Hooks shared across the fleet (company plugins, common user hooks), of which each endpoint has 60 %. */
const COMMON = 400;
const log = (...a) => console.error('[bench:inventory]', ...a);
const gzipAsync = promisify(gzip);
const sha = (s) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const now = () => performance.now();

const LAYERS = ['user', 'user', 'project', 'project', 'plugin', 'user', 'project', 'plugin', 'user', 'managed'];
const EVENTS = ['PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'UserPromptSubmit'];

// One inventoried hook: common ones share their definition across endpoints, the others are this endpoint's own.
function hook(i, own, endpoint) {
  const layer = LAYERS[i % LAYERS.length];
  const program = ['curl', 'python3', 'node', 'bash', 'jq'][i % 5];
  const command = `${program} ${own ? `~/hooks/${endpoint}-${i}.sh` : `/opt/shared/hook-${i}.sh --strict`}`;
  const id = own ? `${endpoint}:${i}` : `common:${i}`;
  return {
    user: layer === 'managed' ? '' : `dev${endpoint % 7}`,
    layer,
    event: EVENTS[i % EVENTS.length],
    matcher: i % 3 === 0 ? null : '^Bash$',
    key: `${layer}:${id}`,
    hash: sha(`def:${id}`),
    trust: layer === 'managed' ? 'managed' : i % 11 === 0 ? 'untrusted' : i % 13 === 0 ? 'modified' : 'trusted',
    managed: layer === 'managed',
    plugin: layer === 'plugin' ? `plugin-${i % 17}` : null,
    project: layer === 'project' ? `/home/dev${endpoint % 7}/src/repo-${i % 23}` : null,
    fate: 'run',
    skipReason: null,
    commandHash: sha(command),
    program,
    command: null,
  };
}

// The inventory document of endpoint number `e` (digest as the agent computes it).
function inventory(e) {
  const hooks = [];
  const common = Math.round(HOOKS * 0.6);
  for (let k = 0; k < common; k++) hooks.push(hook((e * 7 + k * 13) % COMMON, false, e));
  for (let k = common; k < HOOKS; k++) hooks.push(hook(COMMON + k, true, e));
  const body = {
    schema: 'hookwarden.inventory/1',
    commandMode: 'program',
    policyRevision: null,
    hooksEnabled: true,
    allowManagedHooksOnly: false,
    users: [{ user: `dev${e % 7}`, home: `/home/dev${e % 7}`, projects: 3 }],
    hooks,
    skippedSources: [],
    warnings: [],
  };
  return { ...body, collectedAt: new Date().toISOString(), digest: inventoryDigest(body) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

// Uploads one gzip inventory with an endpoint credential; resolves with the status.
function upload(base, credential, gz) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/v1/agent/inventory`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${credential}`,
          'content-type': 'application/vnd.hookwarden.inventory+json',
          'content-encoding': 'gzip',
          'content-length': gz.length,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(gz);
  });
}

// COPY of the same rows into copies of the inventory tables: the physical reference for the ingest.
async function copyReference(url, groupId, endpointIds) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE bench_inv_hooks (LIKE endpoint_inventory_hooks INCLUDING ALL)`);
    await client.query(`CREATE TABLE bench_inv_docs (LIKE endpoint_inventories INCLUDING ALL)`);
    const esc = (v) =>
      v === null ? '\\N' : String(v).replace(/[\\\t\n]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n' })[c]);
    const t0 = now();
    const hooksOut = client.query(
      copyStreams.from(
        'COPY bench_inv_hooks (endpoint_id, group_id, "user", layer, event, matcher, key, hash, trust, managed, plugin, project, fate, skip_reason, command_hash, program, command) FROM STDIN',
      ),
    );
    const docs = [];
    for (let e = 0; e < endpointIds.length; e++) {
      const doc = inventory(e);
      docs.push(doc);
      let chunk = '';
      for (const h of doc.hooks) {
        chunk +=
          [
            endpointIds[e],
            groupId,
            h.user,
            h.layer,
            h.event,
            h.matcher,
            h.key,
            h.hash,
            h.trust,
            h.managed,
            h.plugin,
            h.project,
            h.fate,
            h.skipReason,
            h.commandHash,
            h.program,
            h.command,
          ]
            .map(esc)
            .join('\t') + '\n';
      }
      if (!hooksOut.write(chunk)) await once(hooksOut, 'drain');
    }
    hooksOut.end();
    await once(hooksOut, 'finish');
    const docsOut = client.query(
      copyStreams.from(
        'COPY bench_inv_docs (endpoint_id, digest, collected_at, command_mode, policy_revision, hooks_enabled, hook_count, doc) FROM STDIN',
      ),
    );
    for (let e = 0; e < docs.length; e++) {
      const d = docs[e];
      const line = [
        endpointIds[e],
        d.digest,
        d.collectedAt,
        d.commandMode,
        null,
        true,
        d.hooks.length,
        JSON.stringify(d),
      ]
        .map(esc)
        .join('\t');
      if (!docsOut.write(line + '\n')) await once(docsOut, 'drain');
    }
    docsOut.end();
    await once(docsOut, 'finish');
    return now() - t0;
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_inv_hooks, bench_inv_docs').catch(() => undefined);
    await client.end();
  }
}

async function main() {
  const dbName = await createDatabase();
  const url = dbUrl(dbName);
  // BENCH_INV_NODE_ARGS: node flags for the API (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_INV_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startApi(dbName, { NODE_ENV: 'production', DATABASE_POOL_MAX: '16' }, nodeArgs);
  try {
    const { api, base } = server;
    log('API ready on', base);
    const group = await api('POST', '/v1/groups', { name: `bench-inventory-${randomBytes(3).toString('hex')}` });
    // N enrolled endpoints with known credentials, written in bulk (enrollment is covered by the tests).
    const creds = Array.from({ length: ENDPOINTS }, () => `hwe_${randomBytes(32).toString('base64url')}`);
    const ids = (
      await sql(
        url,
        `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
         SELECT gen_random_uuid(), $1::uuid, 'bench-' || i, 'bench-host-' || i, 'linux', '0.1.0', h
         FROM unnest($2::text[]) WITH ORDINALITY AS t(h, i) RETURNING id, machine_id`,
        [group.id, creds.map((c) => createHash('sha256').update(c).digest('hex'))],
      )
    )
      .sort((a, b) => Number(a.machine_id.slice(6)) - Number(b.machine_id.slice(6)))
      .map((r) => r.id);

    // Payloads are built and gzipped before the clock starts: the agents' side is not what is measured.
    log(`building ${ENDPOINTS} inventories × ${HOOKS} hooks`);
    const bodies = [];
    let raw = 0;
    for (let e = 0; e < ENDPOINTS; e++) {
      const json = JSON.stringify(inventory(e));
      raw += json.length;
      bodies.push(await gzipAsync(json));
    }
    const gzBytes = bodies.reduce((s, b) => s + b.length, 0);
    log(
      `uploading (${(raw / 1e6).toFixed(0)} MB JSON, ${(gzBytes / 1e6).toFixed(1)} MB gzip), ${CONCURRENCY} at a time`,
    );
    const latencies = [];
    let next = 0;
    let failed = 0;
    const t0 = now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (;;) {
          const e = next++;
          if (e >= ENDPOINTS) return;
          const s = now();
          const res = await upload(base, creds[e], bodies[e]);
          latencies.push(now() - s);
          if (res.status !== 200 && res.status !== 202) {
            failed++;
            if (failed <= 3) log('upload failed', res.status, res.body.slice(0, 300));
          }
        }
      }),
    );
    const ingestMs = now() - t0;
    latencies.sort((a, b) => a - b);
    const stored = Number((await sql(url, 'SELECT count(*)::int AS n FROM endpoint_inventory_hooks'))[0].n);
    log(`ingest ${ingestMs.toFixed(0)} ms, ${stored} hook rows stored, ${failed} failed`);
    const copyMs = await copyReference(url, group.id, ids);
    log(`COPY reference ${copyMs.toFixed(0)} ms`);

    // Preview: a version with allow_managed_hooks_only, for the whole group.
    const policy = await api('POST', '/v1/policies', { name: `bench-${group.id}`, groupId: group.id });
    const version = await api('POST', `/v1/policies/${policy.id}/versions`, {
      toml: 'allow_managed_hooks_only = true\n\n[features]\nhooks = true\n\n[hooks]\nmanaged_dir = "/opt/hookwarden/hooks"\n',
      files: [],
      baseVersion: 0,
    });
    const versionId = version.id ?? version.version?.id;
    const previewMs = [];
    let preview;
    for (let i = 0; i < PREVIEW_RUNS; i++) {
      const s = now();
      preview = await api('GET', `/v1/groups/${group.id}/release-preview?policyVersionId=${versionId}`);
      previewMs.push(now() - s);
    }
    previewMs.sort((a, b) => a - b);

    const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
    const rows = ENDPOINTS * HOOKS;
    const ingestRatio = copyMs / ingestMs;
    const previewP50 = pct(previewMs, 50);
    const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
    const lines = [
      '',
      `bench/inventory results (loopback, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})`,
      '',
      '| measure | result | reference | ratio | target | met |',
      '|---|---|---|---|---|---|',
      `| ingest ${ENDPOINTS} endpoints × ${HOOKS} hooks (${CONCURRENCY} concurrent gzip uploads) | ${f(ingestMs)} ms, ${f(ENDPOINTS / (ingestMs / 1000))} inventories/s, ${f(rows / (ingestMs / 1000))} hook rows/s | COPY of the same rows ${f(copyMs)} ms, ${f(rows / (copyMs / 1000))} rows/s | ${f(ingestRatio, 2)}× of COPY | ≥ 0.7× COPY | ${verdict(ingestRatio >= 0.7 && failed === 0 && stored === rows)} |`,
      `| upload latency | p50 ${f(pct(latencies, 50), 1)} ms, p95 ${f(pct(latencies, 95), 1)} ms, p99 ${f(pct(latencies, 99), 1)} ms | | | | |`,
      `| stored | ${stored}/${rows} hook rows, ${failed} failed uploads | | | all | ${verdict(failed === 0 && stored === rows)} |`,
      `| release preview, ${ENDPOINTS}-endpoint group (${PREVIEW_RUNS} runs) | p50 ${f(previewP50)} ms, p95 ${f(pct(previewMs, 95))} ms | | ${f(previewP50 / 300, 2)}× of the target | p50 ≤ 300 ms | ${verdict(previewP50 <= 300)} |`,
      '',
      `preview: ${JSON.stringify(preview?.suppressed ?? preview?.totals ?? {}).slice(0, 300)}`,
    ];
    console.log(lines.join('\n'));
  } finally {
    server.stop();
    // BENCH_INV_KEEP_DB=1 keeps the filled database for profiling the preview alone (named on stderr).
    if (process.env.BENCH_INV_KEEP_DB) log(`kept database ${dbName}`);
    else await dropDatabase(dbName);
    agent.destroy();
  }
}

await main();
