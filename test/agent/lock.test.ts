// One agent per state directory: the lock file (O_EXCL, holder pid + start time), stale locks after SIGKILL, and two
// real `hookwarden-agent run` processes; a relative --root is resolved so the managed_dir link works.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { acquireStateLock, LOCK_FILE, LockHeld } from '../../apps/agent-sync/src/state/lock';
import { runAgent, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import {
  FakeBundleServer,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const key = new SigningKeyPair('ed25519:trusted');
const MANAGED = '/opt/hw-lock';
let server: FakeBundleServer;
let tmp: string;
let stateDir: string;

// The pid of a process that has exited (SIGKILLed).
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const pid = child.pid!;
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  return pid;
}

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
  server.bundle = signManifest(
    key,
    manifestObject(1, `[hooks]\nmanaged_dir = "${MANAGED}"\n`, [{ path: 'a.sh', content: 'echo a\n' }]),
  );
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, stateDir } = await fakeEnrolledAgent(server, key, 'hw-lock-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('state directory lock', () => {
  it('refuses a second holder while the first lives, and frees the file on release', async () => {
    const lock = await acquireStateLock(stateDir);
    await expect(acquireStateLock(stateDir)).rejects.toBeInstanceOf(LockHeld);
    await expect(acquireStateLock(stateDir)).rejects.toThrow(new RegExp(`pid ${process.pid}`));
    await lock.release();
    await expect(fs.access(path.join(stateDir, LOCK_FILE))).rejects.toThrow();
    await (await acquireStateLock(stateDir)).release();
  });

  it('takes over a lock whose holder is dead, or that a killed holder left empty', async () => {
    const pid = await deadPid();
    await fs.writeFile(
      path.join(stateDir, LOCK_FILE),
      JSON.stringify({ pid, startTime: null, hostname: os.hostname() }),
    );
    const lock = await acquireStateLock(stateDir);
    expect(JSON.parse(await fs.readFile(path.join(stateDir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await lock.release();
    await fs.writeFile(path.join(stateDir, LOCK_FILE), '');
    await (await acquireStateLock(stateDir)).release();
  });

  it('treats a recycled pid (same pid, other start time) as stale', async () => {
    await fs.writeFile(
      path.join(stateDir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, startTime: '1', hostname: os.hostname() }),
    );
    await (await acquireStateLock(stateDir)).release();
  });

  it('treats a lock naming our own pid that this process does not hold as stale (Windows reuses pids at once)', async () => {
    // No start time to compare (as on Windows): the pid alone must not make it look held.
    await fs.writeFile(
      path.join(stateDir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, startTime: null, hostname: os.hostname(), command: 'run --once' }),
    );
    const lock = await acquireStateLock(stateDir);
    expect(JSON.parse(await fs.readFile(path.join(stateDir, LOCK_FILE), 'utf8')).acquiredAt).toBeTruthy();
    await expect(acquireStateLock(stateDir)).rejects.toBeInstanceOf(LockHeld); // held here: still refused
    await lock.release();
  });

  it('lets only one of many concurrent takers of a stale lock win', async () => {
    await fs.writeFile(path.join(stateDir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), startTime: null }));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireStateLock(stateDir)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('runs one `hookwarden-agent run` per state directory; a SIGKILLed one does not block the next', async () => {
    const root = path.join(tmp, 'root'); // made empty by fakeEnrolledAgent
    const first = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '1']);
    await waitFor(() => first.stderr().includes('agent started'), 20_000, 'the first agent');
    const second = await runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another hookwarden-agent \(pid \d+, run since .*\) holds .*agent\.lock/);
    first.child.kill('SIGKILL');
    await first.exited;
    const third = await runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);
    expect(third.code).toBe(0);
    await stopAgent(first);
  });
});

describe('relative locations', () => {
  it('resolves a relative --root and --state-dir, so managed_dir links into the layer', async () => {
    await fs.mkdir(path.join(tmp, 'rel-root'));
    const r = await runAgent(['run', '--once', '--state-dir', 'state', '--root', 'rel-root'], {}, { cwd: tmp });
    expect(r.code).toBe(0);
    const link = await fs.readlink(path.join(tmp, 'rel-root', MANAGED));
    expect(path.isAbsolute(link)).toBe(true);
    expect(await visibleLayer(path.join(tmp, 'rel-root'), MANAGED)).toMatchObject({ 'a.sh': '755:echo a\n' });
  });
});
