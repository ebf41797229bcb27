// export against a hostile server: a managed-file path that would escape the target is refused and nothing is
// written (the tree is staged in a temporary directory first).
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client';
import { exportState } from '../../src/gitops/export';

let server: http.Server;
let url: string;
let tmp: string;
const G = '00000000-0000-4000-8000-000000000001';
const P = '00000000-0000-4000-8000-000000000002';

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-export-'));
  server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (v: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    const t = '2026-12-01T00:00:00.000Z';
    if (u.pathname === '/v1/groups')
      return json({
        items: [{ id: G, name: 'g', description: '', isDefault: true, createdAt: t, updatedAt: t }],
        nextCursor: null,
      });
    if (u.pathname === '/v1/policies')
      return json({
        items: [{ id: P, name: 'p', description: '', groupId: G, latestVersion: 1, createdAt: t, updatedAt: t }],
        nextCursor: null,
      });
    if (u.pathname === `/v1/groups/${G}/audit-settings`)
      return json({ capture: 'none', maxExcerptBytes: 0, redactPatterns: [], useDefaultRedact: true });
    if (u.pathname === `/v1/groups/${G}/releases`) return json({ items: [] });
    if (u.pathname === `/v1/policies/${P}/versions/1`) {
      return json({
        id: P,
        policyId: P,
        number: 1,
        digest: 'sha256:x',
        message: '',
        authorId: null,
        authorName: 'x',
        createdAt: t,
        warnings: [],
        fileCount: 1,
        toml: '[hooks]\n',
        policy: {},
        files: [
          {
            path: '../../../escaped.sh',
            sha256: 'x',
            size: 2,
            mode: 0o755,
            content: Buffer.from('hi').toString('base64'),
          },
        ],
      });
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('exportState', () => {
  it('refuses a file path that leaves the layout and writes nothing', async () => {
    const target = path.join(tmp, 'out');
    await expect(exportState(new ApiClient({ baseUrl: url, token: 't' }), target, false)).rejects.toThrow(
      /refusing to write .*\.\./,
    );
    await expect(fs.stat(target)).rejects.toThrow();
    expect((await fs.readdir(tmp)).sort()).toEqual([]);
    await expect(fs.stat(path.join(tmp, '..', 'escaped.sh'))).rejects.toThrow();
  });
});
