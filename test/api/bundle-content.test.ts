// Authoring refuses, with a located 400 and before any row is written, every version an agent would refuse.
import pg from 'pg';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createPolicy } from '../support/policies';

let api: TestApi;
let db: pg.Client;
let policyId: string;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  policyId = await createPolicy(api.baseUrl, api.adminToken, 'content-rules');
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const post = (body: unknown) =>
  call(api.baseUrl, 'POST', `/v1/policies/${policyId}/versions`, { token: api.adminToken, body });
const rows = async (): Promise<number> =>
  (await db.query('SELECT count(*)::int AS n FROM policy_versions WHERE policy_id = $1', [policyId])).rows[0].n;
const toml = (dir: string): string =>
  `[hooks]\nmanaged_dir = ${JSON.stringify(dir)}\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\n` +
  `type = "command"\ncommand = ${JSON.stringify(`${dir}/check.sh`)}\n`;
const script = (path: string, mode = 0o755) => ({ path, content: '#!/bin/sh\nexit 0\n', mode });

describe('bundle content at authoring', () => {
  it.each([
    ['the spec example ~/.zerotwo/hooks', '~/.zerotwo/hooks', 'managed_dir_home_relative', /system-wide/],
    ['/', '/', 'managed_dir_overlap', /root directory/],
    ['the system config directory', '/etc/zerotwo', 'managed_dir_overlap', /system config directory/],
    [
      "the agent's layer",
      '/etc/zerotwo/.hookwarden-layer/current/managed',
      'managed_dir_overlap',
      /\.hookwarden-layer/,
    ],
    ["the agent's state", '/var/lib/hookwarden-agent/x', 'managed_dir_overlap', /state directory/],
  ])('managed_dir = %s → 400 located at its TOML line, nothing stored', async (_name, dir, code, message) => {
    const before = await rows();
    const res = await post({ toml: toml(dir), files: [script('check.sh')] });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const d = res.body.error.details.find((x: any) => x.code === code);
    expect(d, JSON.stringify(res.body.error.details)).toMatchObject({
      path: '$.hooks.managed_dir',
      field: '$.toml',
      line: 2,
      column: expect.any(Number),
    });
    expect(d.message).toMatch(message);
    expect(await rows()).toBe(before);
  });

  it('the structured form is located at $.policy.hooks.managed_dir', async () => {
    const res = await post({ policy: { hooks: { managed_dir: '~/.zerotwo/hooks' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({ code: 'managed_dir_home_relative', field: '$.policy.hooks.managed_dir' }),
    );
  });

  it.each([
    ['case-folding duplicate', [script('A.sh'), script('a.sh')], 1, 'duplicate_file_path'],
    ['a parent is also a file', [script('x'), script('x/y.sh')], 1, 'file_directory_conflict'],
    ['lib/./util.sh', [script('lib/./util.sh')], 0, 'unsafe_file_path'],
    ['./x', [script('./x')], 0, 'unsafe_file_path'],
    ['newline', [script('a\nb.sh')], 0, 'unsafe_file_path'],
    ['tab', [script('a\tb.sh')], 0, 'unsafe_file_path'],
    ['0x01', [script('a\u0001b.sh')], 0, 'unsafe_file_path'],
    ['300-character segment', [script('s'.repeat(300))], 0, 'unsafe_file_path'],
    ['1,024-character name', [script('n'.repeat(1024))], 0, 'unsafe_file_path'],
    ['world-writable mode', [script('w.sh', 0o777)], 0, 'invalid_file_mode'],
  ])('files: %s → 400 at $.files[i], nothing stored', async (_name, files, index, code) => {
    const before = await rows();
    const res = await post({ toml: toml('/opt/hw/hooks'), files });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const key = code === 'invalid_file_mode' ? 'mode' : 'path';
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({ code, path: `$.files[${index}].${key}`, field: `$.files[${index}].${key}` }),
    );
    expect(await rows()).toBe(before);
  });

  it('a version inside every rule is stored', async () => {
    const res = await post({
      toml: toml('/opt/hw/hooks'),
      files: [script('check.sh'), script('lib/util.sh', 0o644), script('Lib2/x.sh')],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('non-hook sections at authoring', () => {
  it('come back with their types: floats stay floats, integers integers, dates dates; dropped comments are warned', async () => {
    const text =
      '# managed by IT\n[rules]\nratio = 1.0\nlimit = 1e3\nzero = -0.0\ncount = 3\nsince = 2026-01-01\n\n' +
      '[mcp_servers.docs]\ncommand = "npx" # the launcher\ntool_timeout_sec = 60.0\n\n' +
      '[permissions.fs]\nat = 07:30:00\n\n' +
      toml('/opt/hw/hooks');
    const res = await post({ toml: text, files: [script('check.sh')], baseVersion: await rows() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const typed = (t: string): Record<string, unknown> => {
      const { hooks: _hooks, ...rest } = parse(t, { integersAsBigInt: true });
      return rest;
    };
    expect(typed(res.body.toml)).toEqual(typed(text));
    expect(res.body.toml).toMatch(/^tool_timeout_sec = 60\.0$/m);
    expect(res.body.toml).toMatch(/^zero = -0\.0$/m);
    expect(res.body.warnings).toContainEqual(
      expect.objectContaining({ code: 'comments_dropped', line: 1, column: 1, field: '$.toml' }),
    );
  });
});

describe('releasing a version stored before the content rules', () => {
  it('is refused with 409 naming the broken rule (every agent would refuse its bundle)', async () => {
    const res = await post({ toml: toml('/opt/hw/legacy'), files: [script('check.sh')], baseVersion: await rows() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // What an older API stored: the spec's home-relative managed_dir.
    await db.query('UPDATE policy_versions SET canonical_toml = $1 WHERE id = $2', [
      toml('~/.zerotwo/hooks'),
      res.body.id,
    ]);
    const policy = await call(api.baseUrl, 'GET', `/v1/policies/${policyId}`, { token: api.adminToken });
    const rel = await call(api.baseUrl, 'POST', `/v1/groups/${policy.body.groupId}/releases`, {
      token: api.adminToken,
      body: { policyVersionId: res.body.id },
    });
    expect(rel.status, JSON.stringify(rel.body)).toBe(409);
    expect(rel.body.error.message).toMatch(/system-wide/);
    expect(rel.body.error.details).toContainEqual(
      expect.objectContaining({ path: '$.policyVersionId', code: 'managed_dir_home_relative' }),
    );
  });
});
