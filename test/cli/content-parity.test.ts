// The CLI's offline version content equals what a real API computes for the same request (same hook-core validator,
// same digest formula), so plan compares digests with the server's exactly; and what the API refuses, the CLI
// refuses offline too.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareLocalVersion, sha256Hex } from '../../apps/cli/src/gitops/content';
import { readLayout } from '../../apps/cli/src/gitops/layout';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

const EXAMPLE = path.resolve(__dirname, '../../examples/gitops');
let api: TestApi;
let policyId: string;

beforeAll(async () => {
  api = await startTestApi();
  const group = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'parity' } });
  const policy = await call(api.baseUrl, 'POST', '/v1/policies', {
    token: api.adminToken,
    body: { name: 'parity', groupId: group.body.id },
  });
  policyId = policy.body.id;
}, 120_000);
afterAll(async () => {
  await api?.close();
});

// The API's validation of a version body (stores nothing).
async function validate(toml: string, files: Array<{ path: string; content: Buffer; mode: number }>) {
  const res = await call(api.baseUrl, 'POST', `/v1/policies/${policyId}/versions/validate`, {
    token: api.adminToken,
    body: {
      toml,
      files: files.map((f) => ({
        path: f.path,
        content: f.content.toString('base64'),
        encoding: 'base64',
        mode: f.mode,
      })),
      message: '',
    },
  });
  return res;
}

describe('CLI version content against the API', () => {
  it('the example layout: digest and canonical TOML equal the API’s', async () => {
    const desired = await readLayout(EXAMPLE);
    expect(desired.policies.length).toBeGreaterThan(0);
    for (const p of desired.policies) {
      const res = await validate(p.content.sourceText, p.content.files);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ok, JSON.stringify(res.body.errors)).toBe(true);
      expect(p.content.digest).toBe(res.body.digest);
      expect(p.content.canonicalToml).toBe(res.body.toml);
    }
  });

  it('content the API refuses is refused offline too', async () => {
    const toml = '[hooks]\nmanaged_dir = "/opt/hw"\n';
    for (const names of [['A.sh', 'a.sh'], ['x', 'x/y.sh'], ['bad\nname.sh']]) {
      const files = names.map((p) => {
        const content = Buffer.from('#!/bin/sh\n');
        return { path: p, content, mode: 0o755, sha256: sha256Hex(content) };
      });
      const local = prepareLocalVersion(toml, files, 'requirements.toml', (p) => `files/${p}`);
      const res = await validate(toml, files);
      const refusedByApi = res.status === 400 || (res.status === 200 && res.body.ok === false);
      expect(refusedByApi, `${names.join(' + ')}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
      expect(local.ok, names.join(' + ')).toBe(false);
    }
  });
});
