// A Redis master, its replica and three Sentinels owned by one test: own loopback ports and temp directory, removed
// by stop(). killMaster() is the fault (SIGKILL); waitForFailover() waits until the sentinels name the replica.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../net';

/** The master name the sentinels monitor. */
export const SENTINEL_MASTER_NAME = 'hwmaster';

export interface SentinelRedis {
  masterPort: number;
  replicaPort: number;
  sentinelPorts: number[];
  /** The API's settings: REDIS_SENTINELS, REDIS_SENTINEL_NAME (REDIS_URL is not used for the address). */
  env: Record<string, string>;
  /** The port the sentinels name as master now. */
  currentMasterPort(): Promise<number | null>;
  /** SIGKILL of the current master (returns its port). */
  killMaster(): Promise<number>;
  /** Waits until the sentinels name another master than `oldPort` and it accepts writes. */
  waitForFailover(oldPort: number, timeoutMs?: number): Promise<void>;
  /** A client of the current master (through the sentinels), for the test's own checks. */
  client(): Redis;
  stop(): Promise<void>;
}

/** The binaries this topology needs (a test skips without them). */
export function sentinelBinariesMissing(): string[] {
  return ['redis-server', 'redis-sentinel'].filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
}

// Polls `check` every 50 ms until it returns true, or throws naming `what` after `timeoutMs`.
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// One command on a Redis or Sentinel port (a fresh short-lived connection, bounded by a timeout).
async function command(port: number, ...args: string[]): Promise<unknown> {
  const c = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, commandTimeout: 2000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return await c.call(args[0]!, ...args.slice(1));
  } finally {
    c.disconnect();
  }
}

// Starts the master, the replica and three sentinels (quorum 2, master down after 1 s), all in parallel.
export async function startSentinelRedis(): Promise<SentinelRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-sentinel-'));
  const [masterPort, replicaPort, ...sentinelPorts] = (await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  )) as [number, number, number, number, number];
  const children = new Map<number, ChildProcess>();
  const server = (port: number, extra: string[]): void => {
    const data = path.join(dir, `redis-${port}`);
    rmSync(data, { recursive: true, force: true });
    spawnSync('mkdir', ['-p', data]);
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', data, ...extra],
      { stdio: 'ignore' },
    );
    children.set(port, child);
  };
  server(masterPort, []);
  server(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
  for (const port of sentinelPorts) {
    const conf = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 10000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    children.set(port, spawn('redis-sentinel', [conf], { stdio: 'ignore' }));
  }
  const currentMasterPort = async (): Promise<number | null> => {
    for (const port of sentinelPorts) {
      const addr = (await command(port, 'SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER_NAME).catch(
        () => null,
      )) as string[] | null;
      if (addr) return Number(addr[1]);
    }
    return null;
  };
  const self: SentinelRedis = {
    masterPort,
    replicaPort,
    sentinelPorts,
    env: {
      REDIS_SENTINELS: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
      REDIS_SENTINEL_NAME: SENTINEL_MASTER_NAME,
    },
    currentMasterPort,
    async killMaster() {
      const port = (await currentMasterPort()) ?? masterPort;
      const child = children.get(port)!;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      return port;
    },
    async waitForFailover(oldPort, timeoutMs = 30_000) {
      await until(
        async () => {
          const now = await currentMasterPort();
          if (!now || now === oldPort) return false;
          return String(await command(now, 'ROLE').then((r) => (r as unknown[])[0])) === 'master';
        },
        timeoutMs,
        'the sentinels to promote the replica',
      );
    },
    client() {
      const c = new Redis({
        sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
        name: SENTINEL_MASTER_NAME,
        maxRetriesPerRequest: 3,
      });
      c.on('error', () => undefined);
      return c;
    },
    async stop() {
      await Promise.all(
        [...children.values()].map(async (c) => {
          if (c.exitCode !== null || c.signalCode !== null) return;
          const exited = new Promise((r) => c.once('exit', r));
          c.kill('SIGKILL');
          await exited;
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Ready when the replica is in sync and every sentinel knows the replica and the two other sentinels (a
    // failover needs the quorum and a known replica).
    await until(
      async () => /master_link_status:up/.test(String(await command(replicaPort, 'INFO', 'replication'))),
      20_000,
      'the replica to sync',
    );
    await until(
      async () => {
        for (const port of sentinelPorts) {
          const master = (await command(port, 'SENTINEL', 'master', SENTINEL_MASTER_NAME)) as string[];
          const field = (name: string): number => Number(master[master.indexOf(name) + 1]);
          if (field('num-slaves') < 1 || field('num-other-sentinels') < 2) return false;
        }
        return true;
      },
      30_000,
      'the sentinels to discover the replica and each other',
    );
  } catch (err) {
    await self.stop();
    throw err;
  }
  return self;
}
