// `npm run demo -- --exit`: the whole flow against its own API, worker and database; it removes everything it made.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { admin } from '../support/db';
import { TEST_REDIS_URL } from '../support/run';
import { freePort } from '../support/net';

const DEMO = path.resolve(__dirname, '../../scripts/demo.mjs');

describe('npm run demo', () => {
  it('runs every step to the end, denies rm -rf, allows ls, shows the auditor view, then cleans up', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [DEMO, '--exit', '--no-build', '--port', String(port)], {
      env: { ...process.env, REDIS_URL: TEST_REDIS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).toContain('decision: deny — rm -rf is blocked by company policy');
    expect(out).toContain('decision: none (allowed); hooks run: 1');
    expect(out).toMatch(/decision=deny\s+status=ran\s+revision=1/);
    expect(out).toContain(`API          http://127.0.0.1:${port}`);
    expect(out).toContain('demo finished');
    const db = /database (hookwarden_demo_[0-9a-f]+)/.exec(out)?.[1];
    const prefix = /Redis prefix (hookwarden-demo-[0-9a-f]+)/.exec(out)?.[1];
    expect(db && prefix, out).toBeTruthy();
    const left = await admin((c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]));
    expect(left.rowCount).toBe(0);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const [, keys] = await redis.scan('0', 'MATCH', `${prefix}:*`, 'COUNT', 10_000);
      expect(keys).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 240_000);
});
