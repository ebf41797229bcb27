// bench/agent: the endpoint daemon's footprint while it holds its long poll. Enrolls agents against a real API (its
// own database), starts `hookwarden-agent run` — the npm bin and the packaged single executable — and samples each
// process's RSS and CPU time from /proc for BENCH_AGENT_SECONDS (default 60) once its first poll is held. Targets:
// idle RSS ≤ 50 MB, CPU ≤ 0.2 % of a core, peak RSS ≤ 150 MB; each printed with PASS/FAIL.
// Run with `npm run bench:agent` (Linux; needs PostgreSQL and Redis; builds the packages and the Linux package).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, dropDatabase, root, startApi } from '../lib.mjs';

const SECONDS = Number(process.env.BENCH_AGENT_SECONDS ?? 60);
const TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux
execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'scripts/bundle-bins.mjs')], { cwd: root, stdio: 'ignore' });
execFileSync(process.execPath, [path.join(root, 'scripts/package-agent.mjs'), '--no-tar', '--no-windows', '--quiet'], {
  cwd: root,
  stdio: 'inherit',
});
const pkgRoot = path.join(root, 'dist', 'package');
const pkg = path.join(
  pkgRoot,
  readdirSync(pkgRoot).find((n) => n.startsWith('hookwarden-agent-') && !n.includes('windows') && !n.endsWith('.gz')),
);
const variants = [
  { name: 'npm bin', cmd: path.join(root, 'node_modules', '.bin', 'hookwarden-agent') },
  { name: 'single executable', cmd: path.join(pkg, 'bin', 'hookwarden-agent') },
];

/** RSS (bytes), peak RSS (bytes) and CPU seconds of a process, from /proc. */
function sample(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpu: (Number(fields[11]) + Number(fields[12])) / TICKS };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (b) => (b / 1048576).toFixed(1);
const database = await createDatabase();
const api = await startApi(database);
const children = [];
try {
  const [group] = (await api.api('GET', '/v1/groups?limit=1')).items;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-bench-agent-'));
  const results = [];
  for (const v of variants) {
    const dir = path.join(tmp, v.name.replace(/\W+/g, '-'));
    const agentRoot = path.join(dir, 'root');
    const stateDir = path.join(dir, 'state');
    mkdirSync(path.join(agentRoot, 'etc'), { recursive: true });
    writeFileSync(path.join(agentRoot, 'etc/machine-id'), `bench-${v.name}-${Date.now()}\n`);
    const { secret } = await api.api('POST', `/v1/groups/${group.id}/enrollment-secrets`, { name: `bench-${v.name}` });
    execFileSync(
      v.cmd,
      ['enroll', '--server', api.base, '--secret', secret, '--state-dir', stateDir, '--root', agentRoot],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const child = spawn(v.cmd, ['run', '--state-dir', stateDir, '--root', agentRoot], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let log = '';
    child.stderr.on('data', (d) => (log += d.toString()));
    // Started (its first poll follows at once); sampling begins a few seconds later, once the start-up work is done.
    const deadline = Date.now() + 60_000;
    while (!log.includes('agent started')) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`${v.name} did not start: ${log.slice(-500)}`);
      await sleep(200);
    }
    await sleep(3000);
    const first = sample(child.pid);
    let maxRss = first.rss;
    for (let t = 0; t < SECONDS; t++) {
      await sleep(1000);
      maxRss = Math.max(maxRss, sample(child.pid).rss);
    }
    const last = sample(child.pid);
    const cpuPct = ((last.cpu - first.cpu) / SECONDS) * 100;
    results.push({ variant: v.name, rss: last.rss, maxRss, peak: last.peak, cpuPct });
    child.kill('SIGTERM');
  }
  console.log(`\nhookwarden-agent run, idle on its long poll (${SECONDS} s sampled after start; real API on loopback)`);
  console.log('variant            | RSS MB | max RSS MB (sampled) | peak RSS MB (VmHWM) | CPU % of a core');
  for (const r of results)
    console.log(
      `${r.variant.padEnd(18)} | ${mb(r.rss).padStart(6)} | ${mb(r.maxRss).padStart(20)} | ${mb(r.peak).padStart(19)} | ${r.cpuPct.toFixed(3)}`,
    );
  for (const r of results) {
    const line = (label, value, limit, unit) =>
      console.log(
        `target: ${r.variant} ${label} ≤ ${limit} ${unit} → ${value} ${Number(value) <= limit ? 'PASS' : 'FAIL'}`,
      );
    line('idle RSS', mb(r.maxRss), 50, 'MB');
    line('idle CPU', r.cpuPct.toFixed(3), 0.2, '% of a core');
    line('peak RSS', mb(r.peak), 150, 'MB');
  }
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  api.stop();
  await dropDatabase(database);
}
