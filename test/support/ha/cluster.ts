// The HA topology of one test: HAProxy in front of 3 API instances (built apps/api/dist/main.js, real processes) and
// 2 workers (dist/worker.js), on this test's own ports, database and Redis prefix; health-checked on /readyz. Agents
// and admins use `url` (HAProxy) only. Everything starts in parallel; stop() kills all and removes the temp dir.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../net';
import { installed, killProcess, type Proc, ready, ROOT, startHaproxy, startNode, until } from './haproxy.mjs';

export interface Cluster {
  /** HAProxy's URL: the only address agents and admins use. */
  url: string;
  adminToken: string;
  /** Each API instance's own URL (for the test's checks only). */
  apiUrls: string[];
  apis: Array<Proc | null>;
  workers: Array<Proc | null>;
  haproxy: Proc;
  env: NodeJS.ProcessEnv;
  /** kill -9 of API instance `i`. */
  killApi(i: number): Promise<void>;
  /** Starts API instance `i` again on its port and waits until HAProxy routes to it. */
  restartApi(i: number): Promise<void>;
  /** The last output lines of every process (failure diagnosis). */
  diagnose(): string;
  stop(): Promise<void>;
}

/** What the HA suite needs installed: a test skips (or fails under CI) naming what is missing. */
export function haMissing(): string[] {
  const missing = ['haproxy', 'redis-server', 'redis-sentinel'].filter((c) => !installed(c));
  for (const f of ['apps/api/dist/main.js', 'apps/api/dist/worker.js', 'apps/agent-sync/dist/cli/main.js']) {
    if (!existsSync(path.join(ROOT, f))) missing.push(`${f} (npx tsc -b tsconfig.build.json)`);
  }
  return missing;
}

// Starts the topology against `databaseUrl` with `env` (Redis settings, intervals…) for every process.
export async function startCluster(
  databaseUrl: string,
  env: Record<string, string>,
  o: { apis?: number; workers?: number; fdLimit?: number; maxconn?: number } = {},
): Promise<Cluster> {
  const nApis = o.apis ?? 3;
  const nWorkers = o.workers ?? 2;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-ha-cluster-'));
  const [proxyPort, ...apiPorts] = await Promise.all(Array.from({ length: nApis + 1 }, () => freePort()));
  const adminToken = `hwt_test_${randomBytes(24).toString('base64url')}`;
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    HOOKWARDEN_BOOTSTRAP_TOKEN: adminToken,
    // Every instance behind one load balancer shares the key material and trusts HAProxy's X-Forwarded-For.
    HOOKWARDEN_KEK: randomBytes(32).toString('base64'),
    HOOKWARDEN_CURSOR_SECRET: randomBytes(32).toString('hex'),
    TRUST_PROXY: 'loopback',
    DATABASE_POOL_MAX: '10',
    ...env,
  };
  const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  const apiEnv = (i: number): NodeJS.ProcessEnv => ({ ...common, PORT: String(apiPorts[i]) });
  const apis: Array<Proc | null> = [];
  const workers: Array<Proc | null> = [];
  const url = `http://127.0.0.1:${proxyPort}`;
  // All at once (the first signing key and admin token are created under a database lock by whichever is first).
  for (let i = 0; i < nApis; i++) apis.push(startNode('main', apiEnv(i), o.fdLimit));
  for (let w = 0; w < nWorkers; w++) workers.push(startNode('worker', common, o.fdLimit));
  const haproxy = startHaproxy({
    dir,
    port: proxyPort!,
    servers: apiPorts.map((port, i) => ({ name: `api${i}`, port })),
    maxconn: o.maxconn,
    fdLimit: o.fdLimit,
  });
  const all = (): Array<Proc | null> => [...apis, ...workers, haproxy];
  const self: Cluster = {
    url,
    adminToken,
    apiUrls,
    apis,
    workers,
    haproxy,
    env: common,
    async killApi(i) {
      await killProcess(apis[i]);
    },
    async restartApi(i) {
      apis[i] = startNode('main', apiEnv(i), o.fdLimit);
      await until(() => ready(apiUrls[i]!), 120_000, `API instance ${i} to be ready`);
    },
    diagnose() {
      const tail = (name: string, p: Proc | null): string =>
        `--- ${name} (${p?.alive() ? 'running' : 'exited'}):\n${p?.output.slice(-15).join('') ?? ''}`;
      return [
        ...apis.map((p, i) => tail(`api${i}`, p)),
        ...workers.map((p, i) => tail(`worker${i}`, p)),
        tail('haproxy', haproxy),
      ].join('\n');
    },
    async stop() {
      await Promise.all(all().map((p) => killProcess(p)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(apiUrls.map((u, i) => until(() => ready(u), 120_000, `API instance ${i} to be ready`)));
    await until(() => ready(url), 20_000, 'HAProxy to route');
    if (!haproxy.alive()) throw new Error('haproxy exited');
  } catch (err) {
    const why = self.diagnose();
    await self.stop();
    throw new Error(`${(err as Error).message}\n${why}`);
  }
  return self;
}
