// Shared parts of the benches: loopback ports, one-shot SQL, a migrated bench database (cloned from the test
// template when present), the API as a child process, percentiles.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ADMIN_URL = process.env.HW_BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

// A free loopback port.
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Runs one statement on a database and returns its rows.
export async function sql(url, text, params = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

// The connection URL of a database on the bench server.
export const dbUrl = (name) => Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();

// A fresh migrated database named hw_bench_<random>: cloned from the test template when present, else migrated.
export async function createDatabase() {
  const dir = path.join(root, 'prisma/migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(dir, name, 'migration.sql')));
  }
  const template = `hw_tpl_${hash.digest('hex').slice(0, 12)}`;
  const name = `hw_bench_${randomBytes(4).toString('hex')}`;
  const exists = (await sql(ADMIN_URL, 'SELECT 1 FROM pg_database WHERE datname = $1', [template])).length > 0;
  if (exists) await sql(ADMIN_URL, `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  else {
    await sql(ADMIN_URL, `CREATE DATABASE "${name}"`);
    execFileSync(path.join(root, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl(name) },
      stdio: 'ignore',
    });
  }
  return name;
}

// Drops a bench database (best effort).
export function dropDatabase(name) {
  return sql(ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
}

// Starts the built API (apps/api/dist/main.js) on a free port against `database` (`nodeArgs`: flags for node, e.g.
// `--cpu-prof`); resolves once an admin request passes.
export async function startApi(database, env = {}, nodeArgs = []) {
  const port = await freePort();
  const token = `hwt_bench_${randomBytes(24).toString('base64url')}`;
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'apps/api/dist/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl(database),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REDIS_PREFIX: `hwbench:${randomBytes(4).toString('hex')}`,
      HOOKWARDEN_BOOTSTRAP_TOKEN: token,
      // Production mode needs a key-encryption key for the stored signing keys: a fresh one per run.
      HOOKWARDEN_KEK: randomBytes(32).toString('base64'),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  // Ready once an admin request passes (the bootstrap token is stored just after the server starts listening).
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/v1/groups?limit=1`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300 || child.exitCode !== null) throw new Error('API did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  // JSON request with the admin token.
  const api = async (method, p, body) => {
    const res = await fetch(base + p, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : null;
  };
  return { base, token, child, api, stop: () => child.exitCode === null && child.kill('SIGTERM') };
}

// Percentile of a sorted array.
export const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Times whole processes, the commands in turn (A B C A B C …, so machine drift hits all alike) after `warmup` rounds:
 * each command `{ name, cmd, args, input?, check? }` runs `runs` times with `input` on stdin and NODE_EXTRA_CA_CERTS /
 * NODE_OPTIONS unset, under bash's `time` (its fork-to-exit wall time, and the CPU of the process and its children).
 * Returns per command the median and p95 wall ms and the median CPU ms (user + system: a second view, less moved by
 * other load on the machine than wall time is).
 */
export function timeProcesses(commands, { runs = 30, warmup = 3 } = {}) {
  const env = { ...process.env, TIMEFORMAT: '%3R %3U %3S' };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  const wall = commands.map(() => []);
  const cpu = commands.map(() => []);
  for (let i = 0; i < runs + warmup; i++) {
    for (const [k, c] of commands.entries()) {
      // bash's `time` report goes to one file, the command's output to two others.
      const script = '{ time "$@" >"$HW_OUT" 2>"$HW_ERR"; } 2>"$HW_CPU"';
      const files = { HW_OUT: `${tmpBase}.out`, HW_ERR: `${tmpBase}.err`, HW_CPU: `${tmpBase}.cpu` };
      const r = spawnSync('bash', ['-c', script, 'bash', c.cmd, ...c.args], {
        input: c.input ?? '',
        env: { ...env, ...files, ...(c.env ?? {}) },
      });
      const out = readFileSync(files.HW_OUT, 'utf8');
      if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${readFileSync(files.HW_ERR, 'utf8')}`);
      if (c.check) c.check(out);
      if (i < warmup) continue;
      const [real, u, s] = readFileSync(files.HW_CPU, 'utf8').trim().split(/\s+/).map(Number);
      wall[k].push(real * 1000);
      cpu[k].push((u + s) * 1000);
    }
  }
  return commands.map((c, k) => ({
    name: c.name,
    runs: wall[k].length,
    medianMs: median(wall[k]),
    p95Ms: pct(
      [...wall[k]].sort((a, b) => a - b),
      95,
    ),
    cpuMs: median(cpu[k]),
  }));
}
const tmpBase = path.join(os.tmpdir(), `hw-bench-proc-${process.pid}`);

/** Median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * One target line: `measured ≤ limit × reference` on wall medians, with the CPU ratio beside it; returns the row for
 * the results file.
 */
export function target(label, row, ref, limit) {
  const ratio = row.medianMs / ref.medianMs;
  const cpuRatio = row.cpuMs / ref.cpuMs;
  const pass = ratio <= limit;
  console.log(
    `target: ${label} ≤ ${limit} × ${ref.name} → ${ratio.toFixed(2)} (${row.medianMs.toFixed(1)} / ${ref.medianMs.toFixed(1)} ms; CPU ${cpuRatio.toFixed(2)}) ${pass ? 'PASS' : 'FAIL'}`,
  );
  return { label, limit, reference: ref.name, ratio, cpuRatio, pass };
}

/** The rows of timeProcesses as a table, with each row's ratio to `ref`. */
export function printProcessTable(title, rows, ref) {
  console.log(`\n${title}`);
  console.log(`${'command'.padEnd(56)} |  median |     p95 | CPU ms | × ${ref.name}`);
  for (const r of rows)
    console.log(
      `${r.name.padEnd(56)} | ${r.medianMs.toFixed(1).padStart(7)} | ${r.p95Ms.toFixed(1).padStart(7)} | ${r.cpuMs.toFixed(0).padStart(6)} | ${(r.medianMs / ref.medianMs).toFixed(2)}`,
    );
}
