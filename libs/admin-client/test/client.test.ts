// The typed admin client against a real HTTP server: path and query built from the typed call, answers parsed,
// the one error body decoded, reads retried after Retry-After (writes never), bodies bounded — and, at compile
// time, paths, parameters and bodies the document does not have refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminApiError, AdminBodyError, AdminClient, AdminNetworkError } from '@hookwarden/admin-client';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

// Starts a server on an ephemeral port; returns its base URL.
async function serve(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('AdminClient', () => {
  it('fills path parameters, serialises the query, sends headers and parses the typed answer', async () => {
    const seen: Array<{ url?: string; auth?: string; method?: string; body: string }> = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ url: req.url, auth: req.headers.authorization, method: req.method, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ id: 'g/1', name: 'eng', description: '', isDefault: false, createdAt: 'a', updatedAt: 'b' }),
        );
      });
    });
    const client = new AdminClient({ baseUrl: `${url}/`, headers: () => ({ authorization: 'Bearer t' }) });
    const g = await client.GET('/v1/groups/{id}', { params: { path: { id: 'a b/c' } } });
    expect(g.name).toBe('eng');
    await client.GET('/v1/hook-runs', { params: { query: { toolCommand: 'rm -rf', managed: 'true', limit: 5 } } });
    await client.PATCH('/v1/groups/{id}', { params: { path: { id: 'x' } }, body: { description: 'd' } });
    expect(seen.map((s) => [s.method, s.url, s.auth, s.body])).toEqual([
      ['GET', '/v1/groups/a%20b%2Fc', 'Bearer t', ''],
      ['GET', '/v1/hook-runs?toolCommand=rm+-rf&managed=true&limit=5', 'Bearer t', ''],
      ['PATCH', '/v1/groups/x', 'Bearer t', '{"description":"d"}'],
    ]);
    expect(client.url('GET', '/v1/groups', { params: { query: { namePrefix: 'e', cursor: undefined } } })).toBe(
      `${url}/v1/groups?namePrefix=e`,
    );
  });

  it('retries a read after Retry-After, never a write, and decodes the error body once', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      if (calls % 3 !== 0) {
        res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json', 'x-request-id': 'hdr' });
        res.end('{"error":{"code":"unavailable","message":"busy","details":[{"message":"m","line":2}]}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[],"nextCursor":null}');
    });
    const errors: AdminApiError[] = [];
    const client = new AdminClient({ baseUrl: url, onError: (e) => errors.push(e) });
    await expect(client.GET('/v1/groups')).resolves.toEqual({ items: [], nextCursor: null });
    expect(calls).toBe(3);
    calls = 0;
    const err = await client.POST('/v1/groups', { body: { name: 'x' } }).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err).toBeInstanceOf(AdminApiError);
    expect(err).toMatchObject({ status: 503, code: 'unavailable', message: 'busy', decoded: true, requestId: 'hdr' });
    expect((err as AdminApiError).retryAfterMs).toBe(0);
    expect((err as AdminApiError).diagnostics).toEqual([{ message: 'm', line: 2 }]);
    expect(errors).toEqual([err]);
  });

  it('reports a body that is not the error body by its status, and a dead server as a network error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>oops</html>');
    });
    const err = (await new AdminClient({ baseUrl: url, retries: 0 })
      .GET('/v1/groups')
      .catch((e: unknown) => e)) as AdminApiError;
    expect(err).toMatchObject({ status: 500, code: 'http_500', decoded: false, bodyText: '<html>oops</html>' });
    const dead = new AdminClient({ baseUrl: 'http://127.0.0.1:9', retries: 0 });
    await expect(dead.GET('/v1/groups')).rejects.toBeInstanceOf(AdminNetworkError);
  });

  it('cuts an answer at the size limit', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`[${' '.repeat(4096)}]`);
    });
    const client = new AdminClient({ baseUrl: url, maxBytes: 1024 });
    await expect(client.GET('/v1/groups')).rejects.toThrow(AdminBodyError);
  });

  it('follows every page of a list', async () => {
    const url = await serve((req, res) => {
      const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(cursor ? { items: [{ id: 2 }], nextCursor: null } : { items: [{ id: 1 }], nextCursor: 'c2' }),
      );
    });
    const items = await new AdminClient({ baseUrl: url }).list('/v1/groups', { query: { namePrefix: 'a' } });
    expect(await new AdminClient({ baseUrl: url }).page('/v1/groups', {}, { limit: 1 })).toEqual({
      items: [{ id: 1 }],
      nextCursor: 'c2',
    });
    expect(items).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('refuses, at compile time, what the document does not have', () => {
    const client = new AdminClient({ baseUrl: 'http://127.0.0.1:9', retries: 0 });
    const never = () => {
      // @ts-expect-error not a documented path
      void client.GET('/v1/nothing');
      // @ts-expect-error the path parameter is required
      void client.GET('/v1/groups/{id}');
      // @ts-expect-error not a query parameter of this route
      void client.GET('/v1/groups', { params: { query: { nope: 'x' } } });
      // @ts-expect-error the body is required
      void client.POST('/v1/groups');
      // @ts-expect-error a field the answer does not have
      void client.GET('/v1/groups').then((p) => p.nothing);
    };
    expect(typeof never).toBe('function');
  });
});
