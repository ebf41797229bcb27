// Resource commands of the built CLI (child processes) against the real API and PostgreSQL: contexts in
// config.toml, every command's JSON output parses, tables, located API errors, streaming exports, and audit-log
// verify keeping its checkpoint across runs.
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunRecord } from '@hookwarden/hook-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, ingestRecords, runRecord, type TestEndpoint } from '../support/audit-factories';
import { CLI_BIN, runCli } from '../support/cli';
import { call } from '../support/http';

let api: TestApi;
let tmp: string;
let auditor: string;
let ep: TestEndpoint;
let groupId: string;
let policyId: string;
let releaseId: string;
const MANAGED = '/opt/hw-res';

const admin = async (method: string, p: string, body?: unknown) => {
  const res = await call(api.baseUrl, method, p, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const toml = (m: string) =>
  `[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "${MANAGED}/s.sh ${m}"\n`;

// The CLI with this test's config file and the API given through the environment.
const cli = (args: string[], token = api.adminToken, extra: Record<string, string> = {}) =>
  runCli(['--config', path.join(tmp, 'env-config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: token,
    ...extra,
  });

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-res-'));
  auditor = await auditorToken(api);
  const group = await admin('POST', '/v1/groups', { name: 'res-group', description: 'for resource commands' });
  groupId = group.id;
  policyId = (await admin('POST', '/v1/policies', { name: 'res-policy', groupId })).id;
  const v1 = await admin('POST', `/v1/policies/${policyId}/versions`, {
    toml: toml('1'),
    files: [{ path: 's.sh', content: '#!/bin/sh\necho 1\n', mode: 0o755 }],
    baseVersion: 0,
  });
  await admin('POST', `/v1/policies/${policyId}/versions`, {
    toml: toml('2'),
    files: [{ path: 's.sh', content: '#!/bin/sh\necho 2\n', mode: 0o755 }],
    baseVersion: 1,
  });
  releaseId = (await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.id })).id;
  ep = (await createEndpoints(api.db.url, 1, groupId))[0]!;
  const records: RunRecord[] = Array.from({ length: 25 }, (_, i) =>
    runRecord({
      seq: i + 1,
      decision: i % 2 ? 'deny' : 'allow',
      status: i % 5 ? 'ran' : 'failed',
      event: 'Stop',
      toolName: null,
    }),
  );
  await ingestRecords(api, { id: ep!.id, groupId }, records);
});
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('contexts', () => {
  it('login stores a 0600 config under XDG_CONFIG_HOME; context list/use/current; the environment overrides', async () => {
    const xdg = path.join(tmp, 'xdg');
    const env = { XDG_CONFIG_HOME: xdg };
    const login = await runCli(['login', '--url', api.baseUrl, '--token', api.adminToken, '--context', 'test'], env);
    expect(login.code, login.stderr).toBe(0);
    const file = path.join(xdg, 'hookwarden', 'config.toml');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toContain('[contexts.test]');
    expect((await runCli(['login', '--url', api.baseUrl, '--token', auditor, '--context', 'audit'], env)).code).toBe(0);

    const list = await runCli(['context', 'list', '-o', 'json'], env);
    expect(JSON.parse(list.stdout).items).toEqual([
      { name: 'test', url: api.baseUrl, current: false, hasToken: true },
      { name: 'audit', url: api.baseUrl, current: true, hasToken: true },
    ]);
    expect(list.stdout).not.toContain(api.adminToken);
    expect((await runCli(['context', 'use', 'test'], env)).code).toBe(0);
    const groups = await runCli(['groups', 'list', '-o', 'json'], env);
    expect(groups.code, groups.stderr).toBe(0);
    expect(JSON.parse(groups.stdout).items.map((g: any) => g.name)).toContain('res-group');
    // The auditor context may read but not change.
    const denied = await runCli(['--context', 'audit', 'groups', 'create', 'nope'], env);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('403');

    const current = await runCli(['context', 'current', '-o', 'json'], {
      ...env,
      HOOKWARDEN_URL: 'http://127.0.0.1:1',
    });
    expect(JSON.parse(current.stdout)).toMatchObject({ url: 'http://127.0.0.1:1', source: 'HOOKWARDEN_URL' });
    const unknown = await runCli(['context', 'use', 'nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no context named "nope"');
    const bad = await runCli(['login', '--url', api.baseUrl, '--token', 'hwt_wrong', '--context', 'x'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('401');
    expect(await fs.readFile(file, 'utf8')).not.toContain('hwt_wrong');
    // --sso against a server without single sign-on says so, and stores nothing.
    const noSso = await runCli(['login', '--url', api.baseUrl, '--sso', '--no-browser', '--context', 'y'], env);
    expect(noSso.code).toBe(1);
    expect(noSso.stderr).toContain('has no single sign-on configured');
    const both = await runCli(['login', '--url', api.baseUrl, '--sso', '--token', 'hwt_x'], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('either --sso or --token');
    const stored = JSON.parse((await runCli(['context', 'list', '-o', 'json'], env)).stdout);
    expect(stored.items.map((c: { name: string }) => c.name)).not.toContain('y');
    const none = await runCli(['groups', 'list'], { XDG_CONFIG_HOME: path.join(tmp, 'empty') });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('hookwarden login');
  }, 120_000);

  it('login into a config folder other users can write: tightened to 0700 when ours, refused when not', async () => {
    const login = (xdg: string) =>
      runCli(['login', '--url', api.baseUrl, '--token', api.adminToken, '--context', 'w'], { XDG_CONFIG_HOME: xdg });
    for (const mode of [0o777, 0o770, 0o1777]) {
      const xdg = path.join(tmp, `open-${mode.toString(8)}`);
      const dir = path.join(xdg, 'hookwarden');
      await fs.mkdir(dir, { recursive: true });
      await fs.chmod(dir, mode);
      const r = await login(xdg);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `was writable by other users (mode 0${(mode & 0o777).toString(8)}): tightened to 0700`,
      );
      expect((await fs.stat(dir)).mode & 0o7777).toBe(0o700);
      expect((await fs.stat(path.join(dir, 'config.toml'))).mode & 0o777).toBe(0o600);
      // Already private: nothing to say the second time.
      const again = await login(xdg);
      expect(again.code).toBe(0);
      expect(again.stderr).toBe('');
    }
    // A writable folder of another user cannot be made safe: refused, nothing written, the folder untouched.
    if (process.getuid?.() !== 0) return; // only root can hand a folder to another user here
    const xdg = path.join(tmp, 'foreign');
    const dir = path.join(xdg, 'hookwarden');
    await fs.mkdir(dir, { recursive: true });
    await fs.chmod(dir, 0o777);
    await fs.chown(dir, 65534, 65534);
    const r = await login(xdg);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is writable by other users (mode 0777) and is not yours (owner uid 65534)');
    expect(r.stderr).not.toContain('    at ');
    await expect(fs.stat(path.join(dir, 'config.toml'))).rejects.toThrow();
    expect((await fs.readdir(dir)).length).toBe(0);
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o777);
  }, 120_000);
});

describe('resource commands', () => {
  it('every command answers parseable JSON with -o json', async () => {
    const secret = JSON.parse(
      (await cli(['enrollment-secrets', 'create', 'res-group', '--name', 'x', '-o', 'json'])).stdout,
    );
    const token = JSON.parse(
      (await cli(['tokens', 'create', '--name', 'ci', '--role', 'auditor', '-o', 'json'])).stdout,
    );
    const runs = JSON.parse((await cli(['hook-runs', 'list', '--limit', '5', '-o', 'json'])).stdout);
    const kid = JSON.parse((await cli(['signing-keys', 'list', '-o', 'json'])).stdout).items[0].kid;
    const commands: string[][] = [
      ['groups', 'list'],
      ['groups', 'list', '--all'],
      ['groups', 'get', 'res-group'],
      ['groups', 'create', 'made-by-cli', '--description', 'x'],
      ['groups', 'update', 'made-by-cli', '--description', 'y'],
      ['groups', 'delete', 'made-by-cli'],
      ['audit-settings', 'get', 'res-group'],
      ['audit-settings', 'set', 'res-group', '--capture', 'digests', '--no-default-redact'],
      ['policies', 'list'],
      ['policies', 'list', '--group', 'res-group'],
      ['policies', 'get', 'res-policy'],
      ['policies', 'create', 'cli-draft', '--group', 'res-group'],
      ['policies', 'update', 'cli-draft', '--description', 'd'],
      ['policies', 'delete', 'cli-draft'],
      ['versions', 'list', 'res-policy'],
      ['versions', 'show', 'res-policy', '2'],
      ['versions', 'show', 'res-policy', '2', '--with-content'],
      ['versions', 'toml', 'res-policy', '2'],
      ['versions', 'diff', 'res-policy', '1', '2'],
      ['releases', 'list', 'res-group'],
      ['releases', 'get', releaseId],
      ['rollout', 'show', releaseId],
      ['endpoints', 'list'],
      ['endpoints', 'list', '--group', 'res-group', '--state', 'pending'],
      ['endpoints', 'get', ep.id],
      ['enrollment-secrets', 'list', 'res-group'],
      ['enrollment-secrets', 'revoke', secret.id],
      ['tokens', 'list', '--active'],
      ['tokens', 'revoke', token.id],
      ['hook-runs', 'list', '--group', 'res-group', '--decision', 'deny', '--status', 'ran,failed', '--event', 'Stop'],
      ['hook-runs', 'get', runs.items[0].id],
      ['hook-runs', 'stats', '--bucket', 'day', '--group', 'res-group'],
      ['hook-runs', 'top', '--kind', 'failing'],
      ['hook-runs', 'findings'],
      ['audit-log', 'list', '--action-prefix', 'group.'],
      ['audit-log', 'head'],
      ['audit-log', 'verify', '--no-checkpoint'],
      ['signing-keys', 'list'],
      ['signing-keys', 'trusted'],
      ['signing-keys', 'activate', kid],
      ['context', 'current'],
      ['context', 'list'],
      ['endpoints', 'revoke', ep.id],
    ];
    for (const args of commands) {
      const r = await cli([...args, '-o', 'json']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(() => JSON.parse(r.stdout), `${args.join(' ')} printed: ${r.stdout.slice(0, 200)}`).not.toThrow();
    }
    expect(runs.items).toHaveLength(5);
    const added = await cli(['signing-keys', 'create', '-o', 'json']);
    expect(added.code, added.stderr).toBe(0);
    const newKid = JSON.parse(added.stdout).kid as string;
    const retired = await cli(['signing-keys', 'retire', newKid, '-o', 'json']);
    expect(retired.code, retired.stderr).toBe(0);
    expect(JSON.parse(retired.stdout).retiredAt).not.toBeNull();
    expect(secret.secret).toMatch(/^hws_/);
    const settings = JSON.parse((await cli(['audit-settings', 'get', 'res-group', '-o', 'json'])).stdout);
    expect(settings).toMatchObject({ capture: 'digests', useDefaultRedact: false });
  }, 240_000);

  it('prints readable tables by default', async () => {
    const groups = await cli(['groups', 'list']);
    expect(groups.stdout).toMatch(/^ID +NAME +DEFAULT +DESCRIPTION +UPDATED\n/);
    expect(groups.stdout).toContain('res-group');
    const versions = await cli(['versions', 'list', 'res-policy']);
    expect(versions.stdout.split('\n')[0]).toMatch(/^VERSION +DIGEST +FILES/);
    const diff = await cli(['versions', 'diff', 'res-policy', '1', '2']);
    expect(diff.stdout).toContain('-echo 1\n+echo 2');
    const rollout = await cli(['rollout', 'show', releaseId]);
    expect(rollout.stdout).toContain('status completed');
    const toml = await cli(['versions', 'toml', 'res-policy', '2']);
    expect(toml.stdout).toBe(
      (
        await call(api.baseUrl, 'GET', `/v1/policies/${policyId}/versions/2/requirements.toml`, {
          token: api.adminToken,
        })
      ).body,
    );
    const paged = await cli(['groups', 'list', '--limit', '1']);
    expect(paged.stderr).toContain('--cursor');
  }, 120_000);

  it('errors print the API message and its location and exit non-zero', async () => {
    const bad = await cli(['groups', 'create', 'bad/name']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('400 validation_failed');
    expect(bad.stderr).toContain('$.name');
    expect(bad.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    const missing = await cli(['versions', 'show', 'res-policy', '99']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404');
    // A stale base on versions create: 409 with the server's current version.
    const req = path.join(tmp, 'req.toml');
    await fs.writeFile(req, toml('3'));
    const stale = await cli(['versions', 'create', 'res-policy', '-f', req, '--base', '1']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('409');
    expect(stale.stderr).toMatch(/latest version is 2 \(sha256:[0-9a-f]{64}\)/);
    // Offline validation names file, line and column before anything is sent.
    await fs.writeFile(req, '[hooks]\nmanaged_dir = "/opt/x"\n[[hooks.Stop]]\nmatcher = 3\n');
    const invalid = await cli(['versions', 'create', 'res-policy', '-f', req]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/req\.toml:\d+:\d+/);
    // versions create from a file and a files directory (mode from the executable bit).
    const files = path.join(tmp, 'files');
    await fs.mkdir(files, { recursive: true });
    await fs.writeFile(path.join(files, 's.sh'), '#!/bin/sh\necho 3\n', { mode: 0o755 });
    await fs.writeFile(req, toml('3'));
    const created = await cli([
      'versions',
      'create',
      'res-policy',
      '-f',
      req,
      '--files',
      files,
      '-m',
      'three',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      number: 3,
      message: 'three',
      files: [{ path: 's.sh', mode: 0o755 }],
    });
    const same = await cli(['versions', 'create', 'res-policy', '-f', req, '--files', files]);
    expect(same.stdout).toContain('Unchanged');
  }, 120_000);

  it('rollout watch ends with exit 3 on a paused rollout and 1 on an aborted one', async () => {
    const v2 = await admin('GET', `/v1/policies/${policyId}/versions/2`);
    const staged = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.id,
      strategy: 'staged',
      rings: [10, 50, 100],
      ringIntervalSec: 86_400,
    });
    const paused = await cli(['releases', 'pause', staged.id, '--reason', 'looking', '-o', 'json']);
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused', pausedReason: 'looking' });
    const w1 = await cli(['rollout', 'watch', staged.id, '--interval', '1s']);
    expect(w1.code).toBe(3);
    expect(w1.stdout).toContain('status paused (looking)');
    expect(w1.stdout).toContain('Rollout paused.');
    const resumed = await cli(['releases', 'resume', staged.id, '-o', 'json']);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'rolling' });
    const advanced = await cli(['releases', 'advance', staged.id, '-o', 'json']);
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(JSON.parse(advanced.stdout).id).toBe(staged.id);
    const paused2 = await cli(['releases', 'pause', staged.id]);
    expect(paused2.code, paused2.stderr).toBe(0);
    const aborted = await cli(['releases', 'abort', staged.id]);
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(aborted.stdout).toContain(`Aborted release ${staged.id}`);
    const w2 = await cli(['rollout', 'watch', staged.id, '-o', 'json']);
    expect(w2.code).toBe(1);
    expect(JSON.parse(w2.stdout)).toMatchObject({ end: 'aborted', rollout: { release: { id: staged.id } } });

    // The endpoint-based hook gate's settings: set, shown by rollout show, refused out of range.
    const gateFlags = ['--staged', '--rings', '10,100', '--interval', '1d', '--max-hook-failure-rate', '30%'];
    const bad = await cli([
      'releases',
      'create',
      'res-group',
      '--version-id',
      v2.id,
      ...gateFlags,
      '--min-reporting-endpoints',
      '0',
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--min-reporting-endpoints: 0 is outside 1..1000000');
    const gated = await cli([
      'releases',
      'create',
      'res-group',
      '--version-id',
      v2.id,
      ...gateFlags,
      '--min-hook-runs',
      '5',
      '--min-reporting-endpoints',
      '4',
      '-o',
      'json',
    ]);
    expect(gated.code, gated.stderr).toBe(0);
    const created = JSON.parse(gated.stdout);
    expect(created).toMatchObject({ minHookRuns: 5, minReportingEndpoints: 4, maxHookFailureRate: 0.3 });
    const shown = await cli(['rollout', 'show', created.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      'hook gate: mean of 0 reporting endpoint(s) (need 4, 5+ runs each) of 0 that applied it',
    );
    expect((await cli(['releases', 'abort', created.id])).code).toBe(0);
  }, 120_000);

  it('hook-runs export streams to a file (no progress when stderr is not a terminal)', async () => {
    const out = path.join(tmp, 'runs.ndjson');
    const r = await cli(['hook-runs', 'export', '--group', 'res-group', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = (await fs.readFile(out, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(25);
    for (const l of lines) expect(JSON.parse(l).seq).toBeGreaterThan(0);
    expect((await fs.readdir(tmp)).filter((f) => f.includes('.partial'))).toEqual([]);
    const csv = path.join(tmp, 'runs.csv');
    const c = await cli(['hook-runs', 'export', '--format', 'csv', '--decision', 'deny', '--out', csv, '-o', 'json']);
    expect(JSON.parse(c.stdout)).toMatchObject({ file: csv, lines: 13 });
    // On a terminal (a pseudo-terminal from util-linux `script`), progress is shown on stderr.
    if (spawnSync('script', ['--version']).status === 0) {
      const tty = path.join(tmp, 'tty.ndjson');
      const command = [
        process.execPath,
        CLI_BIN,
        '--config',
        path.join(tmp, 'env-config.toml'),
        'hook-runs',
        'export',
        '--out',
        tty,
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      // Asynchronous: the API answering it runs in this process.
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, HOOKWARDEN_URL: api.baseUrl, HOOKWARDEN_TOKEN: api.adminToken },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const r2 = { stdout: '', status: null as number | null };
      child.stdout.on('data', (d: Buffer) => (r2.stdout += d.toString()));
      r2.status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(r2.status, r2.stdout).toBe(0);
      expect(r2.stdout).toMatch(/downloaded \d+(\.\d)? (B|KiB), 25 line\(s\)/);
      expect((await fs.readFile(tty, 'utf8')).trim().split('\n')).toHaveLength(25);
    }
    const audit = path.join(tmp, 'audit.ndjson');
    expect((await cli(['audit-log', 'export', '--out', audit])).code).toBe(0);
    expect((await fs.readFile(audit, 'utf8')).trim().split('\n').length).toBeGreaterThan(3);
  }, 120_000);

  it('audit-log verify keeps the signed checkpoint in the config directory and catches a later truncation', async () => {
    const cfgDir = path.join(tmp, 'verify-cfg');
    const verify = (...extra: string[]) =>
      runCli(['--config', path.join(cfgDir, 'config.toml'), 'audit-log', 'verify', ...extra], {
        HOOKWARDEN_URL: api.baseUrl,
        HOOKWARDEN_TOKEN: auditor,
      });
    const first = await verify('-o', 'json');
    expect(first.code, first.stderr).toBe(0);
    const r1 = JSON.parse(first.stdout);
    expect(r1).toMatchObject({ ok: true, keptCheckpoint: null, signatureValid: true });
    const file = path.join(cfgDir, 'audit-checkpoints.json');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await fs.readFile(file, 'utf8')).servers[api.baseUrl];
    expect(kept.seq).toBe(r1.checkpoint.seq);

    await admin('POST', '/v1/groups', { name: 'after-checkpoint' }); // the chain grows: still fine
    const second = await verify();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`still contains the checkpoint kept at seq ${kept.seq}`);
    const kept2 = JSON.parse(await fs.readFile(file, 'utf8')).servers[api.baseUrl];
    expect(Number(kept2.seq)).toBeGreaterThan(Number(kept.seq));

    // Someone removes the newest entries and moves the head back: only the kept checkpoint shows it.
    const db = new pg.Client({ connectionString: api.db.url });
    await db.connect();
    try {
      await db.query(`DELETE FROM audit_log WHERE seq >= ${Number(kept2.seq) - 1}`);
      await db.query(
        `UPDATE audit_log_head SET seq = ${Number(kept2.seq) - 2}, hash = (SELECT hash FROM audit_log WHERE seq = ${Number(kept2.seq) - 2})`,
      );
    } finally {
      await db.end();
    }
    const third = await verify();
    expect(third.code).toBe(1);
    expect(third.stderr).toContain('FAILED: truncated');
    expect(JSON.parse(await fs.readFile(file, 'utf8')).servers[api.baseUrl]).toEqual(kept2);
  });
});
