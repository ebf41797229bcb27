// An API started without a console build answers console paths with a 404 that says how to build it (its own file:
// one API per test file, so nothing else shares this process's Prisma client and Redis connections).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

let api: TestApi;
let empty: string;

beforeAll(async () => {
  empty = await mkdtemp(path.join(os.tmpdir(), 'hw-console-'));
  api = await startTestApi({ CONSOLE_DIR: empty });
});
afterAll(async () => {
  await api?.close();
  await rm(empty, { recursive: true, force: true });
});

describe('console without a build', () => {
  it('says how to build the console, for the console root and its pages, in the API error shape', async () => {
    for (const p of ['/console', '/console/', '/console/policies/123']) {
      const res = await call(api.baseUrl, 'GET', p);
      expect(res.status, p).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.message).toContain('npm run build');
    }
  });

  it('still serves the API itself', async () => {
    const res = await call(api.baseUrl, 'GET', '/healthz');
    expect(res.status).toBe(200);
  });
});
