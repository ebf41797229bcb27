// The built API process (run `npm run build` first): one start-up line naming the URL, the docs URL and whether a
// token was created (route mapping only at debug); no credential in any log line wherever it was sent; LOG_PRETTY.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { TEST_REDIS_URL } from '../support/run';

const MAIN = path.resolve(__dirname, '../../apps/api/dist/main.js');
const STARTED =
  /Hookwarden API listening on (http:\/\/127\.0\.0\.1:\d+) \(docs http:\/\/127\.0\.0\.1:\d+\/docs, console http:\/\/127\.0\.0\.1:\d+\/console\); ([^"\n]*)/;

interface Server {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  stop(): Promise<void>;
}

// Starts dist/main.js and waits (with a deadline) for its start-up line.
async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const deadline = Date.now() + 60_000;
  let m: RegExpExecArray | null = null;
  while (!(m = STARTED.exec(out))) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`API exited ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`no start-up line within 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    baseUrl: m[1]!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The accept queue size of the socket listening on `baseUrl`'s port (ss shows it as Send-Q of a listener).
function listenBacklog(baseUrl: string): number {
  const port = new URL(baseUrl).port;
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
  const fields = line.split(/\s+/);
  expect(fields[0]).toBe('LISTEN');
  return Number(fields[2]);
}

let db: TestDatabase;
const prefix = `hwtest:${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('the API process', () => {
  it('ends start-up with one line, keeps route mapping at debug, and never logs a credential', async () => {
    const server = await startServer({ DATABASE_URL: db.url, REDIS_PREFIX: prefix, LOG_LEVEL: 'info' });
    try {
      // Connects queue in the kernel (LISTEN_BACKLOG, default 4096, capped by net.core.somaxconn), not Node's 511.
      const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
      expect(listenBacklog(server.baseUrl)).toBe(Math.min(4096, somaxconn));
      const out = server.output();
      expect(out.match(new RegExp(STARTED.source, 'g'))).toHaveLength(1);
      expect(STARTED.exec(out)![2]).toContain('first admin token created');
      expect(out).not.toMatch(/Mapped \{/);
      expect(out).not.toMatch(/RoutesResolver|RouterExplorer|InstanceLoader/);
      const token = /First start: created an admin API token[^\n]*\n\n\s+(hwt_[A-Za-z0-9_-]+)/.exec(out)?.[1];
      expect(token).toBeDefined();
      // The credential in a query string, a body, a header and a cookie: none of it may reach the log.
      const enc = encodeURIComponent(token!);
      await fetch(`${server.baseUrl}/v1/groups?access_token=${enc}&token=${enc}`);
      await fetch(`${server.baseUrl}/v1/groups`, {
        headers: { authorization: `Bearer ${token}`, cookie: `s=${token}` },
      });
      await fetch(`${server.baseUrl}/v1/groups/not-a-uuid?access_token=${enc}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await fetch(`${server.baseUrl}/v1/groups`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: token, name: 'x' }),
      });
      // Every spelling of a credential parameter name (array and index forms, percent-encoded, doubly encoded, case
      // and separator variants, nested), and a credential under an innocent name or in the path.
      const variants = [
        `access_token[]=${enc}`,
        `access_token[0]=${enc}`,
        `access_token%5B%5D=${enc}`,
        `ACCESS_TOKEN=${enc}`,
        `Access-Token=${enc}`,
        `accessToken=${enc}`,
        `access%5Ftoken=${enc}`,
        `%61ccess_token=${enc}`,
        `access%255Ftoken=${enc}`,
        `access_token[a][b]=${enc}`,
        `filter[token]=${enc}`,
        `q=${enc}`,
        `q=${token!.replace('_', '%5F')}`,
      ];
      for (const v of variants) await fetch(`${server.baseUrl}/v1/groups?${v}`);
      await fetch(`${server.baseUrl}/v1/groups/${enc}`);
      const ok = await fetch(`${server.baseUrl}/v1/groups`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      // Wait until the last request has been logged, then count.
      const deadline = Date.now() + 10_000;
      while (
        (server.output().match(/"statusCode":/g) ?? []).length < 5 + variants.length + 1 &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await server.stop();
      const logged = server.output();
      expect(logged.split(token!).length - 1).toBe(1); // only the one-time first-start box
      const secretPart = token!.slice(4, 24);
      expect(logged.split(secretPart).length - 1).toBe(1);
      expect(logged).toContain('[REDACTED]');
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('listens with the accept queue LISTEN_BACKLOG asks for', async () => {
    const server = await startServer({
      DATABASE_URL: db.url,
      REDIS_PREFIX: `${prefix}:backlog`,
      LISTEN_BACKLOG: '1234',
    });
    try {
      expect(listenBacklog(server.baseUrl)).toBe(1234);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('is not ready before the first admin token exists: the token works as soon as /readyz answers 200', async () => {
    const fresh = await createTestDatabase();
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const token = `hwt_${randomBytes(32).toString('base64url')}`;
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: fresh.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: `${prefix}:ready`,
        HOOKWARDEN_BOOTSTRAP_TOKEN: token,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      // Polled tightly: the first 200 must already mean the token is stored.
      for (;;) {
        const ready = await fetch(`${base}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
        if (ready === 200) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('the API did not become ready');
        await new Promise((r) => setTimeout(r, 5));
      }
      const groups = await fetch(`${base}/v1/groups`, { headers: { authorization: `Bearer ${token}` } });
      expect(groups.status).toBe(200);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await fresh.drop();
    }
  }, 120_000);

  it('starts with LOG_PRETTY=true (pino-pretty is a dependency) and says no token was created on a used database', async () => {
    const server = await startServer({
      DATABASE_URL: db.url,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'true',
    });
    try {
      expect(STARTED.exec(server.output())![2]).toContain('no token created');
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      // Pretty output is not JSON lines.
      expect(server.output()).not.toMatch(/^\{"level":/m);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
