// A highly available PostgreSQL a test owns: one etcd, two Patroni-managed PostgreSQL 15 nodes (the first made by
// initdb, the second a streaming replica made by pg_basebackup, synchronous: `synchronous_mode: true`) and HAProxy in
// front with one port to the current primary (Patroni `GET /primary`) and one to the replicas (`GET /replica`, with
// the primary as a backup server when no replica is up). Everything runs on free loopback ports with its data under
// one temp directory, which stop() removes. Fault injection: kill the leader node outright (Patroni and every
// PostgreSQL process, kill -9: a machine gone), pause and resume WAL replay on the replica.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { TEMPLATE_DB, type TestDatabase, urlFor } from '../db';
import { freePort } from '../net';

export const PG_BIN = process.env.HW_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Patroni's view of the cluster: ttl (leader key lifetime), loop_wait and retry_timeout, in seconds. */
export const PATRONI_TIMING = { ttl: 10, loop_wait: 1, retry_timeout: 4 } as const;

/** The name of the application database the cluster holds (a copy of this checkout's migrated test template). */
export const HA_DATABASE = 'hookwarden';

// True when `cmd` is an executable on PATH (or an absolute executable path).
function onPath(cmd: string): boolean {
  if (cmd.includes('/')) return existsSync(cmd);
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(path.join(dir, cmd)));
}

// What this machine lacks to run the HA PostgreSQL suite, or null when it has everything.
export function haPostgresMissing(): string | null {
  const missing = [
    ...['initdb', 'pg_ctl', 'pg_basebackup', 'pg_dump', 'psql', 'postgres']
      .map((b) => path.join(PG_BIN, b))
      .filter((b) => !existsSync(b)),
    ...['patroni', 'etcd', 'haproxy'].filter((c) => !onPath(c)),
  ];
  return missing.length === 0 ? null : `missing ${missing.join(', ')}`;
}

/** The one line the global setup prints when the suite cannot run here. */
export function haPostgresSkipLine(): string | null {
  const missing = haPostgresMissing();
  return missing
    ? `HA PostgreSQL (${missing}): skipping test/ha PostgreSQL failover suites — ` +
        'apt-get install -y postgresql-15 patroni etcd-server haproxy to run them'
    : null;
}

/**
 * `describe` for an HA PostgreSQL suite: without the packages it is skipped (the one line saying so comes from
 * test/global-setup.ts), except under CI=true, where their absence fails (`.ci/run` installs them).
 */
export function describeHaPostgres(name: string, fn: () => void): void {
  const missing = haPostgresMissing();
  if (!missing) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs PostgreSQL 15, Patroni, etcd and HAProxy under CI=true', () => {
        throw new Error(`${name}: ${missing}; .ci/run installs them`);
      });
    });
    return;
  }
  describe.skip(name, fn);
}

/** The cluster's application database (through HAProxy's primary port) for startTestApi's `db` option; the cluster
 *  owns it (stop() removes everything), so drop() does nothing. */
export function haTestDatabase(ha: PgHa): TestDatabase {
  return { name: HA_DATABASE, url: ha.primaryUrl(), drop: () => Promise.resolve() };
}

export interface PgNode {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
  dataDir: string;
  patroni: ChildProcess | null;
  /** A direct connection URL of this node's database (bypassing HAProxy). */
  url(db?: string): string;
}

export interface PgHa {
  /** URL of a database through HAProxy's primary port (the current primary, wherever it is). */
  primaryUrl(db?: string): string;
  /** URL of a database through HAProxy's replica port (a replica; the primary when no replica is up). */
  replicaUrl(db?: string): string;
  nodes: PgNode[];
  /** The node Patroni's REST API names primary right now, or null (none, or during a failover). */
  leader(): Promise<PgNode | null>;
  /** Waits until a node is primary and reachable through HAProxy's primary port; returns it. */
  waitForPrimary(timeoutMs?: number, not?: PgNode): Promise<PgNode>;
  /** Waits until `node` runs as a streaming replica that Patroni marks synchronous. */
  waitForSyncReplica(node: PgNode, timeoutMs?: number): Promise<void>;
  /** kill -9 of the node's Patroni and every PostgreSQL process of it (the machine is gone); returns their pids. */
  killNode(node: PgNode): Promise<number[]>;
  /** Starts a killed node's Patroni again (it rejoins as a replica, rewound when needed). */
  restartNode(node: PgNode): void;
  /** Pauses / resumes WAL replay on a replica (it keeps receiving and flushing WAL: synchronous commits go on);
   *  the cluster is in Patroni maintenance mode (no automatic failover) meanwhile. */
  pauseReplay(node: PgNode): Promise<void>;
  resumeReplay(node: PgNode): Promise<void>;
  /** The last lines of a node's Patroni and PostgreSQL logs and of HAProxy (for failure messages). */
  logs(): string;
  stop(): Promise<void>;
}

// Resolves after `ms`.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// Polls `check` every 100 ms until it returns a truthy value; throws naming `what` (and `why`) at the deadline.
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T>, why?: () => string): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (${last})` : ''}\n${why?.() ?? ''}`);
    await sleep(100);
  }
}

// The HTTP status of GET http://127.0.0.1:port/path within 1 s, or 0 when nothing answers.
async function httpStatus(port: number, p: string): Promise<number> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${p}`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

// Runs one query on a connection URL (connect timeout 2 s).
async function queryOnce<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

// The last `n` lines of a file ('' when it does not exist).
function tail(file: string, n = 30): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-n).join('\n');
}

// Pids of the live processes whose parent is `ppid` (from /proc).
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = (() => {
      try {
        return readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        return null;
      }
    })();
    // Field 4 (after the parenthesized command, which may hold spaces) is the parent pid.
    const m = stat && /\) \S+ (\d+)/.exec(stat);
    if (m && Number(m[1]) === ppid) out.push(Number(entry));
  }
  return out;
}

// The postmaster pid of a data directory while it runs (first line of postmaster.pid), or null.
function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

// SIGKILL, ignoring processes already gone.
function killHard(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

// The uid/gid PostgreSQL runs as: the postgres user when this process is root (PostgreSQL refuses root), else ours.
function pgUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

// One node's Patroni configuration (YAML is a superset of JSON, so JSON it is).
function patroniConfig(scope: string, etcdPort: number, node: PgNode): string {
  return JSON.stringify(
    {
      scope,
      namespace: '/hookwarden-test/',
      name: node.name,
      log: { level: 'INFO', dir: node.dir, file_num: 1, file_size: 10_000_000 },
      restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
      etcd3: { hosts: [`127.0.0.1:${etcdPort}`], protocol: 'http' },
      bootstrap: {
        dcs: {
          ...PATRONI_TIMING,
          // Only a replica that confirmed every commit may be promoted (RPO 0); with the standby gone the primary
          // goes on alone (not strict): availability over a second copy while one node is left.
          synchronous_mode: true,
          synchronous_mode_strict: false,
          // A crashed primary is failed over at once instead of being restarted in place for up to 5 minutes.
          primary_start_timeout: 0,
          maximum_lag_on_failover: 1024 * 1024,
          postgresql: {
            use_pg_rewind: true,
            use_slots: true,
            parameters: {
              // fsync stays on (the default): the data-loss claims hold on a real disk.
              fsync: 'on',
              synchronous_commit: 'on',
              wal_level: 'replica',
              hot_standby: 'on',
              hot_standby_feedback: 'on',
              wal_log_hints: 'on',
              max_wal_senders: 5,
              max_replication_slots: 5,
              wal_keep_size: '128MB',
              max_connections: 200,
              shared_buffers: '32MB',
              // A lagging replica may stay paused for a test's duration without cancelling its queries.
              max_standby_streaming_delay: '-1',
            },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { locale: 'C' }, 'data-checksums', { auth: 'trust' }],
      },
      postgresql: {
        listen: `127.0.0.1:${node.pgPort}`,
        connect_address: `127.0.0.1:${node.pgPort}`,
        data_dir: node.dataDir,
        bin_dir: PG_BIN,
        pgpass: path.join(node.dir, 'pgpass'),
        authentication: {
          superuser: { username: 'postgres', password: 'postgres' },
          replication: { username: 'replicator', password: 'replicator' },
          rewind: { username: 'postgres', password: 'postgres' },
        },
        // Loopback only, trust: these clusters live for one test and listen on 127.0.0.1.
        pg_hba: [
          'local all all trust',
          'host all all 127.0.0.1/32 trust',
          'host replication replicator 127.0.0.1/32 trust',
          'local replication replicator trust',
        ],
        parameters: {
          unix_socket_directories: node.dir,
          logging_collector: 'on',
          log_directory: path.join(node.dir, 'pglog'),
          log_filename: 'postgresql.log',
          log_min_messages: 'warning',
        },
        basebackup: [{ checkpoint: 'fast' }],
      },
      tags: { nofailover: false, noloadbalance: false, clonefrom: false },
      watchdog: { mode: 'off' },
    },
    null,
    2,
  );
}

// HAProxy in front: the primary port checks Patroni's /primary, the replica port /replica; the replica port falls
// back to the primary (backup servers tracking the primary port's checks) when no replica is up. Sessions to a server
// marked down are cut at once, so no client keeps talking to a node that lost its role.
function haproxyConfig(primaryPort: number, replicaPort: number, nodes: PgNode[]): string {
  const server = (n: PgNode): string =>
    `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort} inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions`;
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    '  retries 2',
    `listen pg_primary`,
    `  bind 127.0.0.1:${primaryPort}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    ...nodes.map(server),
    `listen pg_replica`,
    `  bind 127.0.0.1:${replicaPort}`,
    '  balance roundrobin',
    '  option httpchk GET /replica',
    '  http-check expect status 200',
    ...nodes.map(server),
    ...nodes.map(
      (n) =>
        `  server ${n.name}-primary 127.0.0.1:${n.pgPort} backup track pg_primary/${n.name} on-marked-down shutdown-sessions`,
    ),
    '',
  ].join('\n');
}

// Starts etcd, two Patroni nodes and HAProxy (in parallel where they can be), waits for a primary and a synchronous
// replica, and copies this checkout's migrated test template into the HA_DATABASE database.
export async function startPgHa(): Promise<PgHa> {
  const missing = haPostgresMissing();
  if (missing) throw new Error(`HA PostgreSQL: ${missing}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-pgha-'));
  const user = pgUser();
  if (user) chownSync(tmp, user.uid, user.gid);
  const [etcdClient, etcdPeer, primaryPort, replicaPort, ...nodePorts] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const scope = `hw-${randomBytes(4).toString('hex')}`;
  const nodes: PgNode[] = [0, 1].map((i) => {
    const dir = path.join(tmp, `pg${i}`);
    const pgPort = nodePorts[i * 2]!;
    return {
      name: `pg${i}`,
      pgPort,
      restPort: nodePorts[i * 2 + 1]!,
      dir,
      dataDir: path.join(dir, 'data'),
      patroni: null,
      url: (db = HA_DATABASE) => `postgresql://postgres@127.0.0.1:${pgPort}/${db}`,
    };
  });
  const processes: ChildProcess[] = [];
  // A process whose output goes to a log file in the temp directory.
  const launch = (cmd: string, args: string[], log: string, asPg = false): ChildProcess => {
    const fd = openSync(log, 'a');
    const child = spawn(cmd, args, {
      stdio: ['ignore', fd, fd],
      ...(asPg && user ? { uid: user.uid, gid: user.gid } : {}),
      env: { ...process.env, PGUSER: 'postgres' },
    });
    closeSync(fd);
    processes.push(child);
    if (child.pid) appendFileSync(path.join(tmp, 'pids'), `${child.pid}\n`);
    return child;
  };
  // Kills everything still running (the exit hook, should the test process end without stop()).
  const killAll = (): void => {
    for (const p of processes) if (p.exitCode === null && p.signalCode === null && p.pid) killHard(p.pid);
    for (const n of nodes) {
      const pid = postmasterPid(n.dataDir);
      if (pid) killHard(pid);
    }
  };
  process.once('exit', killAll);
  // A watchdog for a test process that dies without stop() or its exit hook (killed by the runner on a timeout):
  // once this process is gone it kills every process of the cluster (the pids file, the postmasters) and removes the
  // temp directory; it ends by itself when stop() removed the directory.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null && [ -d "$0" ]; do sleep 1; done
       [ -d "$0" ] || exit 0
       for p in $(cat "$0/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
       for f in "$0"/pg*/data/postmaster.pid; do [ -f "$f" ] && kill -9 "$(head -n 1 "$f")" 2>/dev/null; done
       rm -rf "$0"`,
      tmp,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  const logs = (): string =>
    [
      ...nodes.flatMap((n) => [
        `--- ${n.name} patroni`,
        tail(path.join(n.dir, 'patroni.out'), 15),
        tail(path.join(n.dir, 'patroni.log'), 25),
        `--- ${n.name} postgresql`,
        tail(path.join(n.dir, 'pglog', 'postgresql.log'), 15),
      ]),
      '--- haproxy',
      tail(path.join(tmp, 'haproxy.log'), 15),
      '--- etcd',
      tail(path.join(tmp, 'etcd.log'), 10),
    ].join('\n');

  const startPatroni = (n: PgNode): void => {
    n.patroni = launch('patroni', [path.join(n.dir, 'patroni.yml')], path.join(n.dir, 'patroni.out'), true);
  };

  try {
    launch(
      'etcd',
      [
        '--name',
        'hw',
        '--data-dir',
        path.join(tmp, 'etcd'),
        '--listen-client-urls',
        `http://127.0.0.1:${etcdClient}`,
        '--advertise-client-urls',
        `http://127.0.0.1:${etcdClient}`,
        '--listen-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-advertise-peer-urls',
        `http://127.0.0.1:${etcdPeer}`,
        '--initial-cluster',
        `hw=http://127.0.0.1:${etcdPeer}`,
        '--log-level',
        'warn',
      ],
      path.join(tmp, 'etcd.log'),
    );
    for (const n of nodes) {
      mkdirSync(path.join(n.dir, 'pglog'), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(n.dir, 'patroni.yml'), patroniConfig(scope, etcdClient!, n));
      if (user) {
        for (const p of [n.dir, path.join(n.dir, 'pglog'), path.join(n.dir, 'patroni.yml')])
          chownSync(p, user.uid, user.gid);
      }
    }
    writeFileSync(path.join(tmp, 'haproxy.cfg'), haproxyConfig(primaryPort!, replicaPort!, nodes));
    launch('haproxy', ['-db', '-f', path.join(tmp, 'haproxy.cfg')], path.join(tmp, 'haproxy.log'));
    await until('etcd', 30_000, async () => (await httpStatus(etcdClient!, '/health')) === 200, logs);
    // Both at once: one wins the initialize race in etcd and runs initdb, the other waits and clones it.
    for (const n of nodes) startPatroni(n);
  } catch (err) {
    killAll();
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }

  const primaryUrl = (db = HA_DATABASE): string => `postgresql://postgres@127.0.0.1:${primaryPort}/${db}`;
  const replicaUrl = (db = HA_DATABASE): string => `postgresql://postgres@127.0.0.1:${replicaPort}/${db}`;

  const leader = async (): Promise<PgNode | null> => {
    const codes = await Promise.all(nodes.map((n) => httpStatus(n.restPort, '/primary')));
    const i = codes.indexOf(200);
    return i === -1 ? null : nodes[i]!;
  };

  const waitForPrimary = async (timeoutMs = 60_000, not?: PgNode): Promise<PgNode> =>
    until<PgNode | null>(
      'a primary behind HAProxy',
      timeoutMs,
      async () => {
        const l = await leader();
        if (!l || l === not) return null;
        const rows = await queryOnce<{ r: boolean }>(primaryUrl('postgres'), 'SELECT pg_is_in_recovery() AS r');
        return rows[0]?.r === false ? l : null;
      },
      logs,
    ) as Promise<PgNode>;

  const waitForSyncReplica = async (node: PgNode, timeoutMs = 60_000): Promise<void> => {
    await until(
      `${node.name} as a synchronous replica`,
      timeoutMs,
      async () => {
        if ((await httpStatus(node.restPort, '/sync')) !== 200) return false;
        const rows = await queryOnce<{ s: string }>(
          (await leader())!.url('postgres'),
          "SELECT string_agg(sync_state, ',') AS s FROM pg_stat_replication",
        );
        return rows[0]?.s === 'sync';
      },
      logs,
    );
  };

  // Patroni maintenance mode on or off (PATCH /config {pause}), waiting until `node` runs with it.
  const maintenance = async (node: PgNode, on: boolean): Promise<void> => {
    const res = await fetch(`http://127.0.0.1:${node.restPort}/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pause: on }),
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new Error(`PATCH /config pause=${on} on ${node.name}: ${res.status} ${await res.text()}`);
    await until(
      `${node.name} with maintenance mode ${on ? 'on' : 'off'}`,
      30_000,
      async () => {
        const r = await fetch(`http://127.0.0.1:${node.restPort}/patroni`, { signal: AbortSignal.timeout(1000) });
        return ((await r.json()) as { pause?: boolean }).pause === true ? on : !on;
      },
      logs,
    );
  };

  const self: PgHa = {
    primaryUrl,
    replicaUrl,
    nodes,
    leader,
    waitForPrimary,
    waitForSyncReplica,
    async killNode(node) {
      const pids: number[] = [];
      const patroni = node.patroni;
      if (patroni?.pid && patroni.exitCode === null && patroni.signalCode === null) {
        killHard(patroni.pid);
        pids.push(patroni.pid);
      }
      const pm = postmasterPid(node.dataDir);
      if (pm) {
        const children = childrenOf(pm);
        killHard(pm);
        for (const c of children) killHard(c);
        pids.push(pm, ...children);
      }
      node.patroni = null;
      // Gone when no PostgreSQL process of the node is left (backends also see the postmaster's death).
      await until(`${node.name} processes to die`, 10_000, () =>
        Promise.resolve().then(() =>
          pids.every((pid) => {
            try {
              process.kill(pid, 0);
              return readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
            } catch {
              return true;
            }
          }),
        ),
      );
      return pids;
    },
    restartNode(node) {
      if (node.patroni) throw new Error(`${node.name} is running`);
      startPatroni(node);
    },
    // Patroni resumes a paused replay on every loop (its PostgreSQL 14+ pause-on-parameter-change handling) unless
    // the cluster is in maintenance mode: so maintenance mode first, as an operator would for such an intervention.
    async pauseReplay(node) {
      await maintenance(node, true);
      await queryOnce(node.url('postgres'), 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay(node) {
      await queryOnce(node.url('postgres'), 'SELECT pg_wal_replay_resume()');
      await maintenance(node, false);
    },
    logs,
    async stop() {
      process.off('exit', killAll);
      // Patroni stops its PostgreSQL on SIGTERM (fast shutdown); whatever is left after 10 s is killed.
      const live = processes.filter((p) => p.exitCode === null && p.signalCode === null);
      await Promise.all(
        live.map(
          (p) =>
            new Promise<void>((resolve) => {
              const t = setTimeout(() => p.pid && killHard(p.pid), 10_000);
              p.once('exit', () => {
                clearTimeout(t);
                resolve();
              });
              p.kill('SIGTERM');
            }),
        ),
      );
      killAll();
      rmSync(tmp, { recursive: true, force: true });
      if (watchdog.pid) killHard(watchdog.pid);
    },
  };

  try {
    const first = await waitForPrimary(90_000);
    const other = nodes.find((n) => n !== first)!;
    // The schema and data of the migrated test template, copied while the replica is being cloned.
    await queryOnce(primaryUrl('postgres'), `CREATE DATABASE "${HA_DATABASE}"`);
    await copyTemplate(primaryUrl(HA_DATABASE));
    await waitForSyncReplica(other, 90_000);
    await until(
      'the replica port',
      30_000,
      async () => {
        const rows = await queryOnce<{ r: boolean }>(replicaUrl('postgres'), 'SELECT pg_is_in_recovery() AS r');
        return rows[0]?.r === true;
      },
      logs,
    );
  } catch (err) {
    const diag = logs();
    await self.stop();
    throw new Error(`${(err as Error).message}\n${diag}`);
  }
  return self;
}

// pg_dump of the migrated test template on the shared server, restored with psql into `target`.
async function copyTemplate(target: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const dump = spawn(path.join(PG_BIN, 'pg_dump'), ['--no-owner', '--no-privileges', urlFor(TEMPLATE_DB)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const restore = spawn(path.join(PG_BIN, 'psql'), ['-q', '-X', '-v', 'ON_ERROR_STOP=1', '-d', target], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let errors = '';
    dump.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    restore.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    dump.stdout.pipe(restore.stdin);
    let pending = 2;
    let failed = false;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`${what} exited ${code}: ${errors.slice(-2000)}`));
      }
      if (--pending === 0 && !failed) resolve();
    };
    dump.on('exit', done('pg_dump'));
    restore.on('exit', done('psql'));
  });
}
