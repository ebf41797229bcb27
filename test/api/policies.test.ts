import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createPolicy, SCRIPT, VALID_TOML } from '../support/policies';
import { CORPUS_DIR, HAS_SHARED } from '../support/shared';

// The shared corpus (beside the repository).
const corpus = CORPUS_DIR;

let api: TestApi;
let db: pg.Client;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const post = (policyId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(api.baseUrl, 'POST', `/v1/policies/${policyId}/versions`, { token: api.adminToken, body, headers });

// Counts stored versions of a policy directly in PostgreSQL.
async function versionRows(policyId: string): Promise<number> {
  const r = await db.query('SELECT count(*)::int AS n FROM policy_versions WHERE policy_id = $1', [policyId]);
  return r.rows[0].n;
}

describe('policies', () => {
  it('creates in the default group, moves to another group (audited) and refuses to delete with versions', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'move-me');
    const groups = await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken });
    const def = groups.body.items.find((g: any) => g.isDefault);
    expect((await call(api.baseUrl, 'GET', `/v1/policies/${id}`, { token: api.adminToken })).body.groupId).toBe(def.id);
    const eng = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'eng' } });
    const moved = await call(api.baseUrl, 'PATCH', `/v1/policies/${id}`, {
      token: api.adminToken,
      body: { groupId: eng.body.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.groupId).toBe(eng.body.id);
    const byGroup = await call(api.baseUrl, 'GET', `/v1/policies?groupId=${eng.body.id}`, { token: api.adminToken });
    expect(byGroup.body.items.map((p: any) => p.id)).toEqual([id]);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?targetId=${id}&action=policy.move`, {
      token: api.adminToken,
    });
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0].details.after.groupId).toBe(eng.body.id);
    const busy = await call(api.baseUrl, 'DELETE', `/v1/groups/${eng.body.id}`, { token: api.adminToken });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toContain('1 policies');

    expect((await post(id, { toml: VALID_TOML, files: [SCRIPT] })).status).toBe(201);
    const del = await call(api.baseUrl, 'DELETE', `/v1/policies/${id}`, { token: api.adminToken });
    expect(del.status).toBe(409);
    const badGroup = await call(api.baseUrl, 'PATCH', `/v1/policies/${id}`, {
      token: api.adminToken,
      body: { groupId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(badGroup.status).toBe(400);
    expect(badGroup.body.error.details[0].path).toBe('$.groupId');
  });
});

describe('authoring versions', () => {
  let policyId: string;
  beforeAll(async () => {
    policyId = await createPolicy(api.baseUrl, api.adminToken, 'authoring');
  });

  it('accepts TOML with files, stores canonical TOML, files with sha256/mode and a digest', async () => {
    const res = await post(policyId, { toml: VALID_TOML, files: [SCRIPT], message: 'first', baseVersion: 0 });
    expect(res.status).toBe(201);
    expect(res.body.number).toBe(1);
    expect(res.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(res.headers.get('etag')).toBe(`"${res.body.digest}"`);
    expect(res.body.files).toEqual([
      expect.objectContaining({ path: 'pre_tool_use.py', mode: 0o755, size: Buffer.byteLength(SCRIPT.content) }),
    ]);
    expect(res.body.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.policy.hooks.managed_dir).toBe('/opt/hookwarden/hooks');
    expect(res.body.authorName).toBe('bootstrap admin');
    const toml = await fetch(`${api.baseUrl}/v1/policies/${policyId}/versions/1/requirements.toml`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(toml.status).toBe(200);
    expect(toml.headers.get('content-type')).toContain('text/plain');
    expect(await toml.text()).toBe(res.body.toml);
  });

  it('resubmitting identical content (TOML or the same as JSON) creates nothing and returns the latest version', async () => {
    const again = await post(policyId, { toml: VALID_TOML, files: [SCRIPT], baseVersion: 0 });
    expect(again.status).toBe(200);
    expect(again.body.number).toBe(1);
    const v1 = await call(api.baseUrl, 'GET', `/v1/policies/${policyId}/versions/1`, { token: api.adminToken });
    const asJson = await post(policyId, { policy: v1.body.policy, files: [SCRIPT] });
    expect(asJson.status).toBe(200);
    expect(asJson.body.id).toBe(v1.body.id);
    expect(await versionRows(policyId)).toBe(1);
  });

  it('refuses a stale base with 409 and the current version, a missing base with 428, and honours If-Match', async () => {
    const changed = VALID_TOML.replace('timeout = 30', 'timeout = 45');
    const missing = await post(policyId, { toml: changed, files: [SCRIPT] });
    expect(missing.status).toBe(428);
    expect(missing.body.error.details.currentVersion.number).toBe(1);
    const v2 = await post(policyId, { toml: changed, files: [SCRIPT], baseVersion: 1 });
    expect(v2.status).toBe(201);
    expect(v2.body.number).toBe(2);
    const stale = await post(policyId, {
      toml: VALID_TOML.replace('timeout = 30', 'timeout = 50'),
      files: [SCRIPT],
      baseVersion: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    expect(stale.body.error.details.currentVersion).toMatchObject({ number: 2, digest: v2.body.digest });
    const staleTag = await post(
      policyId,
      { toml: VALID_TOML.replace('timeout = 30', 'timeout = 50'), files: [SCRIPT] },
      {
        'if-match': `"sha256:${'0'.repeat(64)}"`,
      },
    );
    expect(staleTag.status).toBe(409);
    const v3 = await post(
      policyId,
      { toml: VALID_TOML.replace('timeout = 30', 'timeout = 50'), files: [SCRIPT] },
      {
        'if-match': `"${v2.body.digest}"`,
      },
    );
    expect(v3.status).toBe(201);
    expect(v3.body.number).toBe(3);
    const badTag = await post(policyId, { toml: VALID_TOML, files: [] }, { 'if-match': 'nope' });
    expect(badTag.status).toBe(400);
    expect(badTag.body.error.details[0].path).toBe('$.headers["if-match"]');
  });

  it('numbers versions without gaps or duplicates under concurrent authors', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'race');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(id, { toml: VALID_TOML.replace('timeout = 30', `timeout = ${100 + i}`), files: [SCRIPT], baseVersion: 0 }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const next = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(api.baseUrl, 'POST', `/v1/policies/${id}/versions`, {
          token: api.adminToken,
          body: { toml: VALID_TOML.replace('timeout = 30', `timeout = ${200 + i}`), files: [SCRIPT] },
          headers: { 'if-match': `"${results.find((r) => r.status === 201)!.body.digest}"` },
        }),
      ),
    );
    expect(next.filter((r) => r.status === 201).map((r) => r.body.number)).toEqual([2]);
    const list = await call(api.baseUrl, 'GET', `/v1/policies/${id}/versions`, { token: api.adminToken });
    expect(list.body.items.map((v: any) => v.number)).toEqual([2, 1]);
  });

  it.skipIf(!HAS_SHARED)('carries sections the hooks system does not define through unchanged', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'corpus');
    const text = readFileSync(path.join(corpus, '010-workspace-guide-requirements-managed-only.toml'), 'utf8');
    const res = await post(id, { toml: text });
    expect(res.status).toBe(201);
    expect(res.body.toml).toContain('[permissions.safe-noncoder]');
    expect(res.body.toml).toContain('default_permissions = "safe-noncoder"');
    expect(res.body.policy.permissions['safe-noncoder'].extends).toBe(':read-only');
    expect(res.body.warnings.map((w: any) => w.code)).toContain('not_interpreted');
  });
});

describe('authoring errors are located and write nothing', () => {
  let policyId: string;
  beforeAll(async () => {
    policyId = await createPolicy(api.baseUrl, api.adminToken, 'errors');
  });

  const withHandler = (handler: string, event = 'PreToolUse', matcher = '^Bash$') =>
    `[hooks]\nmanaged_dir = "/opt/hw"\n\n[[hooks.${event}]]\nmatcher = ${JSON.stringify(matcher)}\n\n[[hooks.${event}.hooks]]\n${handler}\n`;

  it('TOML syntax error → 400 with line and column', async () => {
    const res = await post(policyId, { toml: 'allow_managed_hooks_only = true\n[hooks\nx = 1\n' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details[0]).toMatchObject({ code: 'toml_syntax', line: 2, field: '$.toml' });
    expect(res.body.error.details[0].column).toBeGreaterThan(0);
    expect(res.body.error.message).toContain('line 2');
  });

  it('schema errors → 400 with the field path (TOML and JSON forms)', async () => {
    const toml = await post(policyId, { toml: VALID_TOML.replace('timeout = 30', 'timeout = "30"') });
    expect(toml.status).toBe(400);
    expect(toml.body.error.details).toContainEqual(
      expect.objectContaining({ code: 'invalid_type', path: '$.hooks.PreToolUse[0].hooks[0].timeout', line: 16 }),
    );
    const json = await post(policyId, {
      policy: { hooks: { PreToolUse: [{ matcher: 'x', hooks: [{ type: 'command', command: 'a', bogus: 1 }] }] } },
    });
    expect(json.status).toBe(400);
    expect(json.body.error.details).toContainEqual(
      expect.objectContaining({
        code: 'unknown_key',
        path: '$.hooks.PreToolUse[0].hooks[0].bogus',
        field: '$.policy.hooks.PreToolUse[0].hooks[0].bogus',
      }),
    );
    const broken = await post(policyId, '{"toml": "x = 1",');
    expect(broken.status).toBe(400);
    expect(broken.body.error, JSON.stringify(broken.body)).toMatchObject({ details: [{ path: '$' }] });
    const neither = await post(policyId, { files: [] });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details[0].path).toBe('$.toml');
  });

  it.each([
    [
      'invalid matcher regex',
      withHandler('type = "command"\ncommand = "/opt/hw/a.sh"', 'PreToolUse', '(['),
      'invalid_matcher',
      '$.hooks.PreToolUse[0].matcher',
    ],
    ['managed_dir not absolute', `[hooks]\nmanaged_dir = "hooks"\n`, 'managed_dir_not_absolute', '$.hooks.managed_dir'],
    [
      'windows_managed_dir not a Windows path',
      `[hooks]\nwindows_managed_dir = "/opt/x"\n`,
      'windows_managed_dir_not_absolute',
      '$.hooks.windows_managed_dir',
    ],
    [
      'timeout out of range',
      withHandler('type = "command"\ncommand = "/opt/hw/a.sh"\ntimeout = 999999'),
      'timeout_out_of_range',
      '$.hooks.PreToolUse[0].hooks[0].timeout',
    ],
    [
      'unknown event',
      withHandler('type = "command"\ncommand = "/opt/hw/a.sh"', 'PreToolUze'),
      'unknown_event',
      '$.hooks.PreToolUze',
    ],
  ])('lint error: %s → 400 located', async (_name, toml, code, path) => {
    const res = await post(policyId, { toml });
    expect(res.status).toBe(400);
    const d = res.body.error.details.find((x: any) => x.code === code);
    expect(d).toMatchObject({ path });
    expect(d.line).toBeGreaterThan(0);
  });

  it.each([
    ['../escape.sh', 'unsafe_file_path'],
    ['/etc/passwd', 'unsafe_file_path'],
    ['a/../../b', 'unsafe_file_path'],
    ['C:\\x.bat', 'unsafe_file_path'],
  ])('file path %s → 400 at $.files[0].path', async (path, code) => {
    const res = await post(policyId, { toml: VALID_TOML, files: [{ path, content: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ code, path: '$.files[0].path' }));
  });

  it('rejects duplicate paths, oversize files, bad base64 and bad modes with their locations', async () => {
    const dup = await post(policyId, { toml: VALID_TOML, files: [SCRIPT, SCRIPT] });
    expect(dup.body.error.details).toContainEqual(
      expect.objectContaining({ code: 'duplicate_file_path', path: '$.files[1].path' }),
    );
    const big = await post(policyId, {
      toml: VALID_TOML,
      files: [{ path: 'big.bin', content: Buffer.alloc(1024 * 1024 + 1).toString('base64'), encoding: 'base64' }],
    });
    expect(big.status).toBe(400);
    expect(big.body.error.details).toContainEqual(
      expect.objectContaining({ code: 'file_too_large', path: '$.files[0].content' }),
    );
    const b64 = await post(policyId, { toml: VALID_TOML, files: [{ path: 'x', content: '@@@', encoding: 'base64' }] });
    expect(b64.body.error.details).toContainEqual(
      expect.objectContaining({ code: 'invalid_base64', path: '$.files[0].content' }),
    );
    const mode = await post(policyId, { toml: VALID_TOML, files: [{ path: 'x', content: 'x', mode: 0o4755 }] });
    expect(mode.status).toBe(400);
    expect(mode.body.error.details[0].path).toBe('$.files[0].mode');
    expect(await versionRows(policyId)).toBe(0);
  });

  it('returns lint warnings with the created version', async () => {
    const toml =
      withHandler('type = "command"\ncommand = "/opt/hw/missing.sh"') +
      '\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/hw/stop.sh"\nadditionalContextLimit = 100\n' +
      '\n[[hooks.SessionStart]]\n\n[[hooks.SessionStart.hooks]]\ntype = "prompt"\nprompt = "hi"\n';
    const res = await post(policyId, { toml, files: [{ path: 'stop.sh', content: '#!/bin/sh\n', mode: 0o755 }] });
    expect(res.status).toBe(201);
    const codes = res.body.warnings.map((w: any) => w.code);
    expect(codes).toEqual(
      expect.arrayContaining(['managed_script_missing', 'additional_context_ignored', 'handler_type_unsupported']),
    );
    for (const w of res.body.warnings) expect(w.path ?? w.line).toBeDefined();
    const again = await call(api.baseUrl, 'GET', `/v1/policies/${policyId}/versions/1`, { token: api.adminToken });
    expect(again.body.warnings).toEqual(res.body.warnings);
  });
});

describe('diffs', () => {
  it('gives a unified diff of the TOML and every added, removed and changed file', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'diffs');
    const keep = { path: 'lib/keep.sh', content: 'echo keep\n', mode: 0o644 };
    const v1 = await post(id, {
      toml: VALID_TOML,
      files: [SCRIPT, keep, { path: 'old.sh', content: 'echo old\n', mode: 0o755 }],
    });
    expect(v1.status).toBe(201);
    const v2 = await post(id, {
      toml: VALID_TOML.replace('timeout = 30', 'timeout = 60'),
      files: [
        { ...SCRIPT, content: SCRIPT.content.replace('"ok"', '"changed"') },
        { ...keep, mode: 0o755 },
        { path: 'new.sh', content: 'echo new\n', mode: 0o755 },
        { path: 'blob.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
      ],
      baseVersion: 1,
    });
    expect(v2.status).toBe(201);
    const diff = await call(api.baseUrl, 'GET', `/v1/policies/${id}/versions/1/diff/2`, { token: api.adminToken });
    expect(diff.status).toBe(200);
    expect(diff.body.toml.status).toBe('modified');
    expect(diff.body.toml.patch).toContain('-timeout = 30');
    expect(diff.body.toml.patch).toContain('+timeout = 60');
    const byPath = Object.fromEntries(diff.body.files.map((f: any) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['blob.bin', 'lib/keep.sh', 'new.sh', 'old.sh', 'pre_tool_use.py']);
    expect(byPath['old.sh'].status).toBe('removed');
    expect(byPath['old.sh'].patch).toContain('-echo old');
    expect(byPath['new.sh'].status).toBe('added');
    expect(byPath['new.sh'].patch).toContain('+echo new');
    expect(byPath['lib/keep.sh']).toMatchObject({ status: 'mode_changed', oldMode: 0o644, newMode: 0o755 });
    expect(byPath['pre_tool_use.py'].patch).toContain('+print("changed")');
    expect(byPath['blob.bin']).toMatchObject({ status: 'added', binary: true });
    const text = await fetch(`${api.baseUrl}/v1/policies/${id}/versions/1/diff/2?format=text`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(text.headers.get('content-type')).toContain('text/x-diff');
    const body = await text.text();
    expect(body).toContain('+timeout = 60');
    expect(body).toContain('--- a/old.sh');
    expect(body).toContain('+++ /dev/null');
    const same = await call(api.baseUrl, 'GET', `/v1/policies/${id}/versions/2/diff/2`, { token: api.adminToken });
    expect(same.body.files).toEqual([]);
    expect(same.body.toml.patch).toBe('');
    const missing = await call(api.baseUrl, 'GET', `/v1/policies/${id}/versions/1/diff/9`, { token: api.adminToken });
    expect(missing.status).toBe(404);
  });
});
