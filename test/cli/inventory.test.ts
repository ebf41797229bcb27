// The fleet hook inventory and the release impact preview through the built CLI (child processes) against the real
// API and PostgreSQL: endpoints upload inventories as an agent does (gzip, endpoint credential, hook-core digest);
// `inventory …` shows them (JSON parses, filters, deny list); `releases preview`; `releases create` of an
// allow_managed_hooks_only version refused (428) until --ack-preview/--yes-preview; GitOps plan shows the impact
// and apply refuses it without --ack-previews.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { type InventoryHook, inventoryDigest } from '@hookwarden/hook-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints, type TestEndpoint } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';

const MANAGED = '/opt/hw-cli-inv';
let api: TestApi;
let tmp: string;

const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const admin = async (method: string, p: string, body?: unknown) => {
  const res = await call(api.baseUrl, method, p, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const cli = (args: string[]) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: api.adminToken,
  });
const json = (stdout: string) => JSON.parse(stdout);

const toml = (extra = '') =>
  `${extra}[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\n` +
  `type = "command"\ncommand = "${MANAGED}/check.sh"\n`;
const MANAGED_ONLY = 'allow_managed_hooks_only = true\n\n';
const SCRIPT = '#!/bin/sh\nexit 0\n';

interface HookSpec {
  layer: 'user' | 'project' | 'plugin';
  id: string;
  program: string;
  trust?: 'trusted' | 'untrusted' | 'modified';
  plugin?: string;
}

// One inventoried hook as the agent reports it (program capture mode).
function hook(h: HookSpec): InventoryHook {
  const command = `${h.program} ~/hooks/${h.id}.sh`;
  return {
    user: 'alice',
    layer: h.layer,
    event: 'PreToolUse',
    matcher: 'Bash',
    key: `${h.layer}:${h.id}`,
    hash: sha(`def:${h.id}`),
    trust: h.trust ?? 'trusted',
    managed: false,
    plugin: h.layer === 'plugin' ? (h.plugin ?? 'acme-tools') : null,
    project: h.layer === 'project' ? '/home/alice/src/app' : null,
    fate: 'run',
    skipReason: null,
    commandHash: sha(command),
    program: h.program,
    command: null,
  };
}

// Uploads an endpoint's inventory like the agent: gzip JSON with the endpoint credential and the hook-core digest.
async function upload(ep: TestEndpoint, hooks: HookSpec[]): Promise<void> {
  const body = {
    schema: 'hookwarden.inventory/1' as const,
    commandMode: 'program' as const,
    policyRevision: null,
    hooksEnabled: true,
    allowManagedHooksOnly: false,
    users: [{ user: 'alice', home: '/home/alice', projects: 1 }],
    hooks: hooks.map(hook),
    skippedSources: [],
    warnings: [],
  };
  const doc = { ...body, collectedAt: new Date().toISOString(), digest: inventoryDigest(body) };
  const res = await fetch(`${api.baseUrl}/v1/agent/inventory`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ep.credential}`,
      'content-type': 'application/vnd.hookwarden.inventory+json',
      'content-encoding': 'gzip',
    },
    body: gzipSync(JSON.stringify(doc)),
  });
  expect(res.status, await res.text()).toBe(200);
}

// A group with a policy (v1 plain, v2 allow_managed_hooks_only) and endpoints with user hooks.
async function fleet(name: string, endpoints: number) {
  const group = await admin('POST', '/v1/groups', { name, description: `${name} laptops` });
  const policy = await admin('POST', '/v1/policies', { name: `${name}-policy`, groupId: group.id });
  const files = [{ path: 'check.sh', content: SCRIPT, mode: 0o755 }];
  const v1 = await admin('POST', `/v1/policies/${policy.id}/versions`, { toml: toml(), files, baseVersion: 0 });
  const v2 = await admin('POST', `/v1/policies/${policy.id}/versions`, {
    toml: toml(MANAGED_ONLY),
    files,
    baseVersion: 1,
  });
  await admin('POST', `/v1/groups/${group.id}/releases`, { policyVersionId: v1.id });
  const eps = await createEndpoints(api.db.url, endpoints, group.id);
  return { group, policy, v1, v2, eps };
}

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-inv-'));
});
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('inventory commands and the release preview', () => {
  let f: Awaited<ReturnType<typeof fleet>>;
  const shared = sha('def:shared');
  const risky = sha('def:risky');

  beforeAll(async () => {
    f = await fleet('inv', 2);
    await upload(f.eps[0]!, [
      { layer: 'user', id: 'shared', program: 'jq' },
      { layer: 'user', id: 'risky', program: 'curl', trust: 'untrusted' },
      { layer: 'plugin', id: 'plug', program: 'node', plugin: 'acme-tools' },
    ]);
    await upload(f.eps[1]!, [
      { layer: 'user', id: 'shared', program: 'jq' },
      { layer: 'project', id: 'proj', program: 'python3' },
    ]);
  });

  it('hooks, plugins, changes, endpoint: JSON parses and shows the uploaded hooks; filters reach the API', async () => {
    const all = await cli(['inventory', 'hooks', '--group', 'inv', '-o', 'json']);
    expect(all.code, all.stderr).toBe(0);
    const items = json(all.stdout).items as any[];
    expect(items.map((h) => h.hash).sort()).toEqual([shared, risky, sha('def:plug'), sha('def:proj')].sort());
    expect(items.find((h) => h.hash === shared)).toMatchObject({ endpoints: 2, layers: ['user'], programs: ['jq'] });

    const untrusted = await cli(['inventory', 'hooks', '--trust', 'untrusted', '-o', 'json']);
    expect(json(untrusted.stdout).items.map((h: any) => h.hash)).toEqual([risky]);
    const curl = await cli(['inventory', 'hooks', '--program', 'curl', '-o', 'json']);
    expect(json(curl.stdout).items.map((h: any) => h.hash)).toEqual([risky]);
    const plugin = await cli(['inventory', 'hooks', '--plugin', 'acme-tools', '--layer', 'plugin', '-o', 'json']);
    expect(json(plugin.stdout).items.map((h: any) => h.hash)).toEqual([sha('def:plug')]);
    const byHash = await cli(['inventory', 'hooks', '--hash', shared, '-o', 'json']);
    expect(json(byHash.stdout).items.map((h: any) => h.hash)).toEqual([shared]);
    const paged = await cli(['inventory', 'hooks', '--limit', '1', '-o', 'json']);
    expect(json(paged.stdout).items).toHaveLength(1);
    expect(json(paged.stdout).nextCursor).toEqual(expect.any(String));

    const table = await cli(['inventory', 'hooks', '--group', 'inv']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^HASH\s+ENDPOINTS\s+LAYERS\s+TRUST/);
    expect(table.stdout).toContain(shared.slice(0, 19));
    expect(table.stdout).not.toContain(shared);
    expect(table.stdout).toContain('untrusted:1');

    const plugins = await cli(['inventory', 'plugins', '--group', 'inv', '-o', 'json']);
    expect(json(plugins.stdout).items).toEqual([{ plugin: 'acme-tools', endpoints: 1, hooks: 1, untrusted: 0 }]);

    const changes = await cli(['inventory', 'changes', '--endpoint', f.eps[0]!.id, '-o', 'json']);
    expect(changes.code, changes.stderr).toBe(0);
    expect(json(changes.stdout).items[0]).toMatchObject({ endpointId: f.eps[0]!.id, added: 3, removed: 0 });
    const future = await cli(['inventory', 'changes', '--since', '2999-01-01T00:00:00Z', '-o', 'json']);
    expect(json(future.stdout).items).toEqual([]);

    const ep = await cli(['inventory', 'endpoint', f.eps[1]!.id, '-o', 'json']);
    expect(
      json(ep.stdout)
        .inventory.hooks.map((h: any) => h.key)
        .sort(),
    ).toEqual(['project:proj', 'user:shared']);
    const epTable = await cli(['inventory', 'endpoint', f.eps[1]!.id]);
    expect(epTable.stdout).toMatch(
      /^project\s+alice\s+PreToolUse\s+Bash\s+sha256:\w{12}\s+trusted\s+run\s+python3\s+\/home\/alice\/src\/app$/m,
    );
  });

  it('bad filters are refused locally, naming the option', async () => {
    const layer = await cli(['inventory', 'hooks', '--layer', 'nope']);
    expect(layer.code).toBe(1);
    expect(layer.stderr).toContain('--layer must be one of');
    const hash = await cli(['inventory', 'hooks', '--hash', 'abc']);
    expect(hash.code).toBe(1);
    expect(hash.stderr).toContain('--hash must be a hook definition hash');
    const since = await cli(['inventory', 'changes', '--since', 'yesterday']);
    expect(since.code).toBe(1);
    expect(since.stderr).toContain('--since');
    // The root's --version prints the CLI version; after a command name, --version is that command's option.
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const sub = await cli(['releases', 'preview', 'inv', '--policy', 'nope', '--version', '1']);
    expect(sub.code).toBe(1);
    expect(sub.stderr).toContain('no policy named "nope"');
    const ep = await cli(['inventory', 'endpoint', 'laptop-1']);
    expect(ep.code).toBe(1);
    expect(ep.stderr).toContain('endpoint id must be a UUID');
  });

  it('deny, denied, findings and allow', async () => {
    const deny = await cli(['inventory', 'deny', risky, '--reason', 'posts ~/.ssh to a pastebin', '-o', 'json']);
    expect(deny.code, deny.stderr).toBe(0);
    expect(json(deny.stdout)).toMatchObject({ hash: risky, reason: 'posts ~/.ssh to a pastebin' });
    const listed = await cli(['inventory', 'denied', '-o', 'json']);
    expect(json(listed.stdout).items.map((d: any) => d.hash)).toEqual([risky]);
    const hooks = await cli(['inventory', 'hooks', '--hash', risky, '-o', 'json']);
    expect(json(hooks.stdout).items[0].denied).toBe(true);
    const findings = await cli(['inventory', 'findings', '--group', 'inv', '-o', 'json']);
    expect(json(findings.stdout).items).toEqual([
      expect.objectContaining({ kind: 'known_bad_hook', endpointId: f.eps[0]!.id, hash: risky }),
    ]);
    const findingsTable = await cli(['inventory', 'findings', '--group', 'inv']);
    expect(findingsTable.stdout).toContain('known_bad_hook');

    const allow = await cli(['inventory', 'allow', risky]);
    expect(allow.code, allow.stderr).toBe(0);
    expect(allow.stdout).toContain(`Removed ${risky}`);
    expect(json((await cli(['inventory', 'denied', '-o', 'json'])).stdout).items).toEqual([]);
    const again = await cli(['inventory', 'allow', risky]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('404');
    const noReason = await cli(['inventory', 'deny', risky]);
    expect(noReason.code).toBe(1);
  });

  it('releases preview prints the impact and the digest', async () => {
    const p = await cli(['releases', 'preview', 'inv', '--policy', 'inv-policy', '--version', '2', '-o', 'json']);
    expect(p.code, p.stderr).toBe(0);
    const preview = json(p.stdout);
    expect(preview).toMatchObject({
      policyVersionId: f.v2.id,
      requiresAck: true,
      suppressed: { user: 3, project: 1, plugin: 1, total: 5, endpoints: 2 },
      endpoints: { total: 2, known: 2, unknown: 0 },
    });
    const text = await cli(['releases', 'preview', 'inv', '--version-id', f.v2.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('suppressed by allow_managed_hooks_only: 5 hook(s) on 2 endpoint(s)');
    expect(text.stdout).toContain(`requires acknowledgement: yes (preview ${preview.digest})`);
    expect(text.stdout).toContain(`--ack-preview ${preview.digest}`);
    const plain = json(
      (await cli(['releases', 'preview', 'inv', '--policy', 'inv-policy', '--version', '1', '-o', 'json'])).stdout,
    );
    expect(plain).toMatchObject({ requiresAck: false, suppressed: { total: 0 } });

    // A version turning hooks off, and one referencing a managed script it does not ship.
    const off = await admin('POST', `/v1/policies/${f.policy.id}/versions`, {
      toml: `[features]\nhooks = false\n\n${toml()}`,
      files: [{ path: 'check.sh', content: SCRIPT, mode: 0o755 }],
      baseVersion: 2,
    });
    const offText = await cli(['releases', 'preview', 'inv', '--version-id', off.id]);
    expect(offText.code, offText.stderr).toBe(0);
    expect(offText.stdout).toMatch(
      /hooks turned off \(\[features\] hooks = false\): 2 endpoint\(s\): host-[01], host-[01]/,
    );
    expect(offText.stdout).toContain('requires acknowledgement: yes');
    expect(offText.stdout).toMatch(/^host-0 .* yes {2,}no /m);
    const missing = await admin('POST', `/v1/policies/${f.policy.id}/versions`, { toml: toml(), baseVersion: 3 });
    const missingText = await cli(['releases', 'preview', 'inv', '--version-id', missing.id]);
    expect(missingText.stdout).toContain('missing managed scripts: check.sh');
    expect(missingText.stdout).toContain('requires acknowledgement: no');
  });

  it('releases create: refused (exit 1) naming --ack-preview; goes through with --ack-preview and --yes-preview', async () => {
    const releases = async () => json((await cli(['releases', 'list', 'inv', '-o', 'json'])).stdout).items as any[];
    const before = (await releases()).length;
    const refused = await cli(['releases', 'create', 'inv', '--policy', 'inv-policy', '--version', '2']);
    expect(refused.code).toBe(1);
    const digest = json((await cli(['releases', 'preview', 'inv', '--version-id', f.v2.id, '-o', 'json'])).stdout)
      .digest as string;
    expect(refused.stderr).toContain(`--ack-preview ${digest}`);
    expect(refused.stderr).toContain('suppressed by allow_managed_hooks_only: 5 hook(s) on 2 endpoint(s)');
    expect(refused.stderr).not.toContain('    at ');
    expect(await releases()).toHaveLength(before);

    const stale = await cli(['releases', 'create', 'inv', '--version-id', f.v2.id, '--ack-preview', sha('other')]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('changed since preview');
    expect(stale.stderr).toContain(`--ack-preview ${digest}`);
    const malformed = await cli(['releases', 'create', 'inv', '--version-id', f.v2.id, '--ack-preview', 'yes']);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('--ack-preview must be a preview digest');

    const acked = await cli([
      'releases',
      'create',
      'inv',
      '--version-id',
      f.v2.id,
      '--ack-preview',
      digest,
      '-o',
      'json',
    ]);
    expect(acked.code, acked.stderr).toBe(0);
    expect(json(acked.stdout)).toMatchObject({ policyVersionId: f.v2.id, policyVersion: 2 });

    // Back to v1 (needs nothing), then v2 again acknowledging whatever the preview shows.
    expect((await cli(['releases', 'create', 'inv', '--version-id', f.v1.id])).code).toBe(0);
    const yes = await cli([
      'releases',
      'create',
      'inv',
      '--policy',
      'inv-policy',
      '--version',
      '2',
      '--yes-preview',
      '-o',
      'json',
    ]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(json(yes.stdout)).toMatchObject({ policyVersionId: f.v2.id });
    expect(yes.stderr).toContain('acknowledged by --yes-preview');
    expect(await releases()).toHaveLength(before + 3);
  });
});

describe('GitOps: the preview in plan, acknowledged by apply --ack-previews', () => {
  let f: Awaited<ReturnType<typeof fleet>>;
  const dir = () => path.join(tmp, 'repo');

  // The directory serving `requirements` (with check.sh) to the group, released immediately.
  async function layout(requirements: string): Promise<void> {
    await fs.mkdir(path.join(dir(), 'policies/gp/files'), { recursive: true });
    await fs.writeFile(path.join(dir(), 'groups.toml'), '[groups.gops]\ndescription = "gops laptops"\n');
    await fs.writeFile(
      path.join(dir(), 'policies/gp/policy.toml'),
      'name = "gops-policy"\ngroup = "gops"\n\n[rollout]\nstrategy = "immediate"\n',
    );
    await fs.writeFile(path.join(dir(), 'policies/gp/requirements.toml'), requirements);
    await fs.writeFile(path.join(dir(), 'policies/gp/files/check.sh'), SCRIPT, { mode: 0o755 });
  }
  const served = async () => {
    const items = json((await cli(['releases', 'list', 'gops', '-o', 'json'])).stdout).items as any[];
    return items.map((r) => r.policyVersion);
  };

  beforeAll(async () => {
    f = await fleet('gops', 1);
    await upload(f.eps[0]!, [
      { layer: 'user', id: 'g1', program: 'jq' },
      { layer: 'user', id: 'g2', program: 'bash' },
    ]);
  });

  it('plan shows the impact of releasing an existing version; apply refuses it without --ack-previews', async () => {
    await layout(toml(MANAGED_ONLY)); // = version 2 on the server, not served yet
    const plan = await cli(['plan', '-f', dir(), '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(2);
    const step = json(plan.stdout).steps.find((s: any) => s.kind === 'release.create');
    expect(step).toMatchObject({
      version: 2,
      preview: { requiresAck: true, suppressed: { user: 2, total: 2, endpoints: 1 }, digest: expect.any(String) },
    });
    const text = await cli(['plan', '-f', dir()]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('impact (release preview):');
    expect(text.stdout).toContain('suppressed by allow_managed_hooks_only: 2 hook(s) on 1 endpoint(s)');
    expect(text.stdout).toContain(`requires acknowledgement: yes (preview ${step.preview.digest})`);
    expect(text.stdout).toContain('--ack-previews');

    const refused = await cli(['apply', '-f', dir()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--ack-previews');
    expect(refused.stderr).toContain(step.preview.digest);
    expect(refused.stderr).toContain('nothing was applied');
    expect(await served()).toEqual([1]);

    const planFile = path.join(tmp, 'plan.json');
    expect((await cli(['plan', '-f', dir(), '--out', planFile])).code).toBe(2);
    const applied = await cli(['apply', '-f', dir(), '--plan', planFile, '--ack-previews', '-o', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    const result = json(applied.stdout);
    expect(result.applied.find((a: any) => a.step.kind === 'release.create').result).toMatchObject({
      previewDigest: step.preview.digest,
      previewAcknowledged: true,
    });
    expect(await served()).toEqual([2, 1]);
    const again = await cli(['plan', '-f', dir()]);
    expect(again.code).toBe(0);
  });

  it('a new version: plan says the impact is computed at apply; apply creates it, refuses the release, then acknowledges it', async () => {
    await layout(toml(MANAGED_ONLY).replace('matcher = "Bash"', 'matcher = "Bash|Edit"'));
    // The group is served version 1 again, so the release of the new version suppresses the user hooks.
    expect((await cli(['releases', 'create', 'gops', '--version-id', f.v1.id])).code).toBe(0);
    const plan = await cli(['plan', '-f', dir()]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain(
      'impact: the version does not exist on the server yet: its impact is computed by apply',
    );

    const refused = await cli(['apply', '-f', dir()]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('suppressed by allow_managed_hooks_only: 2 hook(s) on 1 endpoint(s)');
    expect(refused.stderr).toContain('re-run apply with --ack-previews');
    expect(await served()).toEqual([1, 2, 1]);

    // Version 3 exists now: the plan shows its impact, and apply --ack-previews releases it.
    const json3 = json((await cli(['plan', '-f', dir(), '-o', 'json'])).stdout);
    expect(json3.steps.map((s: any) => s.kind)).toEqual(['release.create']);
    expect(json3.steps[0]).toMatchObject({ version: 3, preview: { requiresAck: true } });
    const applied = await cli(['apply', '-f', dir(), '--ack-previews']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('impact of releasing policy "gops-policy" to group "gops"');
    expect(await served()).toEqual([3, 1, 2, 1]);
  });
  it('apply --plan --ack-previews acknowledges the preview the saved plan showed: a changed impact is refused', async () => {
    expect((await cli(['releases', 'create', 'gops', '--version-id', f.v1.id])).code).toBe(0);
    const planFile = path.join(tmp, 'plan-stale.json');
    expect((await cli(['plan', '-f', dir(), '--out', planFile])).code).toBe(2);
    const shown = json(await fs.readFile(planFile, 'utf8')).steps[0].preview;
    expect(shown).toMatchObject({ requiresAck: true, suppressed: { total: 2 } });
    // The endpoint reports one more user hook: the impact is no longer the one in the plan.
    await upload(f.eps[0]!, [
      { layer: 'user', id: 'g1', program: 'jq' },
      { layer: 'user', id: 'g2', program: 'bash' },
      { layer: 'user', id: 'g3', program: 'curl' },
    ]);
    const refused = await cli(['apply', '-f', dir(), '--plan', planFile, '--ack-previews']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the release impact changed since it was shown (preview ${shown.digest})`);
    expect(refused.stderr).toContain('run plan again');
    expect((await served())[0]).toBe(1);
    const replanned = json((await cli(['plan', '-f', dir(), '-o', 'json'])).stdout).steps[0].preview;
    expect(replanned.suppressed.total).toBe(3);
    expect(replanned.digest).not.toBe(shown.digest);
  });
});
