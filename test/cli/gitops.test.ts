// GitOps end to end: the built CLI (child processes) against the real API, worker, PostgreSQL and Redis, and a real
// agent in the group: export → plan shows nothing; an edited script → exactly that diff, exit 2 → apply → the
// agent receives it; apply twice → nothing; a concurrent edit between plan and apply → refused, nothing applied;
// prune; a staged rollout followed with --watch.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, enrollMachine, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

const MANAGED = '/opt/hw-cli-hooks';
let api: TestApi;
let worker: INestApplicationContext;
let tmp: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-gitops-'));
});
afterAll(async () => {
  await Promise.all(agents.map(stopAgent));
  await worker?.close();
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const admin = async (method: string, p: string, body?: unknown) => {
  const res = await call(api.baseUrl, method, p, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

// The CLI against this test's API (HOOKWARDEN_URL/TOKEN) with a private config file.
const cli = (args: string[], token = api.adminToken) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: token,
  });

const toml = (marker: string) =>
  `[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\n` +
  `type = "command"\ncommand = "${MANAGED}/check.sh ${marker}"\n`;

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=Alice Admin', '-c', 'user.email=alice@example.com', ...args], {
    encoding: 'utf8',
  }).trim();

// Enrolls and starts a real agent in a group.
async function startAgentIn(groupId: string, name: string) {
  const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name })).secret as string;
  const { root, stateDir } = await enrollMachine(api.baseUrl, secret, tmp, name);
  const p = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '5']);
  agents.push(p);
  return { root };
}

// Each case runs several CLI processes, an agent and the worker's ring ticks: minutes, not seconds, on a loaded machine.
describe('hookwarden GitOps', { timeout: 120_000 }, () => {
  let groupId: string;
  let policyId: string;
  let agentRoot: string;
  const dir = () => path.join(tmp, 'repo');

  it('export → plan reports no changes (round trip)', async () => {
    const group = await admin('POST', '/v1/groups', { name: 'eng', description: 'Engineering laptops' });
    groupId = group.id;
    await admin('PUT', `/v1/groups/${groupId}/audit-settings`, {
      capture: 'digests',
      maxExcerptBytes: 512,
      redactPatterns: ['ACME-[0-9]+'],
      useDefaultRedact: false,
    });
    const policy = await admin('POST', '/v1/policies', { name: 'base', description: 'Baseline', groupId });
    policyId = policy.id;
    const v1 = await admin('POST', `/v1/policies/${policyId}/versions`, {
      toml: toml('v1'),
      files: [
        { path: 'check.sh', content: '#!/bin/sh\necho v1\n', mode: 0o755 },
        { path: 'lib/util.sh', content: 'UTIL=1\n', mode: 0o644 },
        { path: 'secret.conf', content: 'k=v\n', mode: 0o600 },
      ],
      baseVersion: 0,
    });
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.id });
    agentRoot = (await startAgentIn(groupId, 'laptop')).root;
    await waitFor(
      async () => (await visibleLayer(agentRoot, MANAGED))?.['check.sh'] === '755:#!/bin/sh\necho v1\n',
      15_000,
      'v1 on the agent',
    );

    const exp = await cli(['export', '-d', dir()]);
    expect(exp.code, exp.stderr).toBe(0);
    expect(await fs.readFile(path.join(dir(), 'policies/base/files/check.sh'), 'utf8')).toBe('#!/bin/sh\necho v1\n');
    expect((await fs.stat(path.join(dir(), 'policies/base/files/check.sh'))).mode & 0o777).toBe(0o755);
    expect((await fs.stat(path.join(dir(), 'policies/base/files/lib/util.sh'))).mode & 0o777).toBe(0o644);
    expect(await fs.readFile(path.join(dir(), 'policies/base/policy.toml'), 'utf8')).toContain(
      '"secret.conf" = "0600"',
    );

    const plan = await cli(['plan', '-f', dir()]);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    const json = await cli(['plan', '-f', dir(), '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).steps).toEqual([]);

    // Exporting into a non-empty directory needs --force.
    const again = await cli(['export', '-d', dir()]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not empty');
  });

  it('an edited script: plan shows exactly that diff (exit 2), apply delivers it to the agent, a second apply does nothing', async () => {
    git(dir(), 'init', '-q');
    git(dir(), 'add', '-A');
    git(dir(), 'commit', '-q', '-m', 'import from server');
    await fs.writeFile(path.join(dir(), 'policies/base/files/check.sh'), '#!/bin/sh\necho v2\n');
    git(dir(), 'commit', '-q', '-am', 'check.sh prints v2');
    const commit = git(dir(), 'rev-parse', 'HEAD');

    const plan = await cli(['plan', '-f', dir(), '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(2);
    const p = JSON.parse(plan.stdout);
    expect(p.steps.map((s: any) => s.kind)).toEqual(['version.create', 'release.create']);
    expect(p.steps[0].changes).toEqual([{ path: 'files/check.sh', status: 'modified' }]);
    expect(p.steps[0].diff).toContain('-echo v1\n+echo v2');
    expect(p.steps[0].diff).not.toContain('requirements.toml');
    expect(p.steps[0].diff).not.toContain('util.sh');
    expect(p.steps[0]).toMatchObject({ baseVersion: 1, policy: 'base' });
    const text = await cli(['plan', '-f', dir()]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('create version 2 of policy "base"');
    expect(text.stdout).toContain('+echo v2');

    const apply = await cli(['apply', '-f', dir()]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Applied 2 change(s)');
    await waitFor(
      async () => (await visibleLayer(agentRoot, MANAGED))?.['check.sh'] === '755:#!/bin/sh\necho v2\n',
      15_000,
      'v2 on the agent',
    );
    const v2 = await admin('GET', `/v1/policies/${policyId}/versions/2`);
    expect(v2.message).toContain('check.sh prints v2');
    expect(v2.message).toContain(`git-commit: ${commit}`);
    expect(v2.message).toContain('git-author: Alice Admin <alice@example.com>');

    const second = await cli(['apply', '-f', dir()]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('No changes');
    expect((await admin('GET', `/v1/policies/${policyId}`)).latestVersion).toBe(2);
    expect((await admin('GET', `/v1/groups/${groupId}/releases`)).items).toHaveLength(2);
    expect((await cli(['plan', '-f', dir()])).code).toBe(0);
  });

  it('a change on the server between plan and apply is refused and nothing is applied', async () => {
    await fs.appendFile(path.join(dir(), 'groups.toml'), '\n[groups.newteam]\ndescription = "created by the plan"\n');
    await fs.writeFile(path.join(dir(), 'policies/base/files/check.sh'), '#!/bin/sh\necho v3\n');
    const planFile = path.join(tmp, 'plan.json');
    const plan = await cli(['plan', '-f', dir(), '--out', planFile]);
    expect(plan.code, plan.stderr).toBe(2);
    expect((await fs.stat(planFile)).mode & 0o777).toBe(0o600);

    // Someone edits the policy through the API meanwhile.
    await admin('POST', `/v1/policies/${policyId}/versions`, {
      toml: toml('hotfix'),
      files: [{ path: 'check.sh', content: '#!/bin/sh\necho hotfix\n', mode: 0o755 }],
      baseVersion: 2,
    });
    const apply = await cli(['apply', '-f', dir(), '--plan', planFile]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('changed since the plan');
    expect(apply.stderr).toContain('nothing was applied');
    expect(apply.stderr).toContain('based on version 2');
    expect(apply.stderr).toContain('now has version 3');
    const groups = (await admin('GET', '/v1/groups?limit=200')).items.map((g: any) => g.name);
    expect(groups).not.toContain('newteam');
    expect((await admin('GET', `/v1/policies/${policyId}`)).latestVersion).toBe(3);

    // A plan made now applies (based on the hotfix), and the directory wins again.
    const fresh = await cli(['plan', '-f', dir(), '--out', planFile]);
    expect(fresh.code).toBe(2);
    const ok = await cli(['apply', '-f', dir(), '--plan', planFile]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await admin('GET', `/v1/policies/${policyId}`)).latestVersion).toBe(4);
    await waitFor(
      async () => (await visibleLayer(agentRoot, MANAGED))?.['check.sh'] === '755:#!/bin/sh\necho v3\n',
      15_000,
      'v3 on the agent',
    );
  });

  it('server-only groups and policies are reported, and removed only with --prune', async () => {
    const legacy = await admin('POST', '/v1/groups', { name: 'legacy' });
    const draft = await admin('POST', '/v1/policies', { name: 'draft', groupId: legacy.id });
    const kept = await admin('POST', '/v1/policies', { name: 'kept-forever', groupId });
    await admin('POST', `/v1/policies/${kept.id}/versions`, { toml: toml('k'), files: [], baseVersion: 0 });

    // A read-only auditor token is enough to plan (what CI runs on pull requests).
    const plan = await cli(['plan', '-f', dir(), '--prune'], await auditorToken(api));
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('delete group "legacy"');
    const denied = await cli(['apply', '-f', dir(), '--prune'], await auditorToken(api));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('403');
    const report = await cli(['plan', '-f', dir()]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('On the server only');
    expect(report.stdout).toContain('group "legacy"');
    expect(report.stdout).toContain('policy "draft"');
    expect(report.stdout).toMatch(/policy "kept-forever".*cannot be removed: has 1 version/);
    expect((await cli(['apply', '-f', dir()])).code).toBe(0);
    expect((await call(api.baseUrl, 'GET', `/v1/groups/${legacy.id}`, { token: api.adminToken })).status).toBe(200);

    const pruning = await cli(['plan', '-f', dir(), '--prune', '-o', 'json']);
    expect(pruning.code, pruning.stderr).toBe(2);
    expect(JSON.parse(pruning.stdout).steps).toEqual([
      { kind: 'policy.delete', policy: 'draft', policyId: draft.id },
      { kind: 'group.delete', group: 'legacy', groupId: legacy.id },
    ]);
    const apply = await cli(['apply', '-f', dir(), '--prune']);
    expect(apply.code, apply.stderr).toBe(0);
    expect((await call(api.baseUrl, 'GET', `/v1/groups/${legacy.id}`, { token: api.adminToken })).status).toBe(404);
    expect((await call(api.baseUrl, 'GET', `/v1/policies/${draft.id}`, { token: api.adminToken })).status).toBe(404);
    expect((await call(api.baseUrl, 'GET', `/v1/policies/${kept.id}`, { token: api.adminToken })).status).toBe(200);
    expect((await cli(['plan', '-f', dir(), '--prune'])).code).toBe(0);
  });

  it('a staged rollout is followed with --watch until it completes', async () => {
    const manifest = path.join(dir(), 'policies/base/policy.toml');
    const text = await fs.readFile(manifest, 'utf8');
    await fs.writeFile(
      manifest,
      text.replace(/\[rollout\][^[]*/, '[rollout]\nstrategy = "staged"\nrings = [50, 100]\ninterval = "1s"\n\n'),
    );
    await fs.writeFile(path.join(dir(), 'policies/base/files/check.sh'), '#!/bin/sh\necho staged\n');
    const plan = await cli(['plan', '-f', dir()]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('staged: rings 50% → 100%, 1s between rings');

    const apply = await cli(['apply', '-f', dir(), '--watch', '--watch-timeout', '60s']);
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    expect(apply.stdout).toMatch(/ring 1 +50%/);
    expect(apply.stdout).toContain('status completed');
    expect(apply.stdout).toMatch(/release [0-9a-f-]{36}: completed/);
    const releases = (await admin('GET', `/v1/groups/${groupId}/releases`)).items;
    expect(releases[0]).toMatchObject({ strategy: 'staged', status: 'completed', rings: [50, 100] });
    await waitFor(
      async () => (await visibleLayer(agentRoot, MANAGED))?.['check.sh'] === '755:#!/bin/sh\necho staged\n',
      15_000,
      'staged version on the agent',
    );
    // Round trip of a staged release: an export of the server plans to nothing.
    const exported = path.join(tmp, 'export-2');
    expect((await cli(['export', '-d', exported])).code).toBe(0);
    const again = await cli(['plan', '-f', exported]);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('offline validation fails first, naming the file, line and column', async () => {
    const bad = path.join(tmp, 'bad');
    await fs.cp(dir(), bad, { recursive: true });
    await fs.writeFile(
      path.join(bad, 'policies/base/requirements.toml'),
      '[hooks]\nmanaged_dir = "relative"\n[[hooks.NoSuchEvent]]\n',
    );
    // No server at all: validation happens before any request.
    const r = await runCli(['--config', path.join(tmp, 'none.toml'), 'plan', '-f', bad], {
      HOOKWARDEN_URL: 'http://127.0.0.1:9',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('offline validation');
    expect(r.stderr).toMatch(/policies\/base\/requirements\.toml:3:\d+ .*unknown hook event/);
    // The lint stage (after a clean parse) locates its findings too.
    await fs.writeFile(path.join(bad, 'policies/base/requirements.toml'), '[hooks]\nmanaged_dir = "relative"\n');
    const lint = await runCli(['--config', path.join(tmp, 'none.toml'), 'validate', '-f', bad]);
    expect(lint.code).toBe(1);
    expect(lint.stderr).toMatch(/policies\/base\/requirements\.toml:2:\d+ .*managed_dir must be an absolute/);
  });
});
