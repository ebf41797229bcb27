// The raw router in front of Fastify: dispatch by exact path and method, fall-through, error shape, closing.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawRouter } from '../../../apps/api/src/common/raw-router';

const router = new RawRouter();
let server: http.Server;
let base = '';
const fallthrough: string[] = [];

beforeAll(async () => {
  router.add({
    methods: ['GET', 'HEAD'],
    path: '/v1/raw',
    authRule: { kind: 'public' },
    handle: (_req, res, requestId) => void res.writeHead(200, { 'x-request-id': requestId }).end('raw'),
  });
  router.add({
    methods: ['GET'],
    path: '/v1/boom',
    authRule: { kind: 'public' },
    handle: () => Promise.reject(new Error('kaput')),
  });
  router.add({
    methods: ['GET'],
    path: '/v1/throws',
    authRule: { kind: 'public' },
    handle: () => {
      throw new Error('sync kaput');
    },
  });
  server = router.serverFactory()((req, res) => {
    fallthrough.push(`${req.method} ${req.url}`);
    res.end('framework');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('RawRouter', () => {
  it('serves its routes (with a query string, HEAD without a body) and hands everything else to the framework', async () => {
    expect(await (await fetch(`${base}/v1/raw`)).text()).toBe('raw');
    expect(await (await fetch(`${base}/v1/raw?x=1`)).text()).toBe('raw');
    const head = await fetch(`${base}/v1/raw`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(await (await fetch(`${base}/v1/raw/more`)).text()).toBe('framework');
    expect(await (await fetch(`${base}/v1/raw`, { method: 'POST' })).text()).toBe('framework');
    expect(fallthrough).toEqual(['GET /v1/raw/more', 'POST /v1/raw']);
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const given = await fetch(`${base}/v1/raw`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const bad = await fetch(`${base}/v1/raw`, { headers: { 'x-request-id': 'no spaces <allowed>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a failing handler (rejected or thrown) with a 500 in the one error shape, naming the request id', async () => {
    for (const p of ['/v1/boom', '/v1/throws']) {
      const res = await fetch(base + p, { headers: { 'x-request-id': 'corr-1' } });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        error: { code: 'internal', message: 'Internal error (request id corr-1)', requestId: 'corr-1' },
      });
    }
  });

  it('refuses a second route on the same path', () => {
    expect(() =>
      router.add({ methods: ['GET'], path: '/v1/raw', authRule: { kind: 'public' }, handle: () => undefined }),
    ).toThrow(/registered twice/);
  });

  it('answers 503 with Retry-After while closing; other routes still reach the framework', async () => {
    router.closing = true;
    try {
      const res = await fetch(`${base}/v1/raw`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
      expect(await (await fetch(`${base}/elsewhere`)).text()).toBe('framework');
    } finally {
      router.closing = false;
    }
  });
});
