// A dedicated redis-server child process owned by one test (stop/start it to simulate an outage; never the shared one).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net';

export interface OwnedRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

// Resolves once the port accepts connections.
async function waitForPort(port: number, up: boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (open === up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis on ${port} did not come ${up ? 'up' : 'down'}`);
}

// Creates (and starts) a redis-server; with `persist` (default) an append-only file keeps queued jobs over a restart,
// without it a restart comes back empty (as most deployments run Redis).
export async function ownedRedis(options: { persist?: boolean } = {}): Promise<OwnedRedis> {
  const persist = options.persist ?? true;
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-redis-'));
  let child: ChildProcess | null = null;
  const self: OwnedRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          ...(persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      await waitForPort(port, true);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
      await waitForPort(port, false);
    },
  };
  await self.start();
  return self;
}
