// Issue 27 through the built `hookwarden` CLI (child processes) against the real API: `releases create --strategy
// shadow` (no gates, no acknowledgement; a second live one refused), `releases shadow-report` (table and JSON with the
// stored shadow runs), `releases promote` (refused naming --ack-preview when the preview needs one, through with
// --yes-preview), `releases abort` of a shadow release, and an auditor refused.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, ingestRecords, shadowDeniedEvent } from '../support/audit-factories';
import { runCli } from '../support/cli';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const MANAGED = '/opt/hw-cli-shadow';
let api: TestApi;
let tmp: string;
let auditor: string;

const cli = (args: string[], token = api.adminToken) =>
  runCli(['--config', path.join(tmp, 'config.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: token,
  });
const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-shadow-'));
  auditor = await auditorToken(api);
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('hookwarden releases (shadow)', () => {
  it('creates, reports, refuses a second one, promotes with the acknowledgement and aborts', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const group = (await admin('GET', `/v1/groups/${groupId}`)).body.name as string;
    // `hookwarden releases create <group> --version-id V --strategy S …`.
    const create = (versionId: string, strategy: string, ...extra: string[]) =>
      cli(['releases', 'create', group, '--version-id', versionId, '--strategy', strategy, ...extra]);
    const files = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n' }];
    // allow_managed_hooks_only to endpoints without an inventory: promoting needs the acknowledgement.
    const strict = await createVersion(
      api,
      policyId,
      `allow_managed_hooks_only = true\n\n${requirementsToml(MANAGED, 'strict')}`,
      files,
    );
    const other = await createVersion(api, policyId, requirementsToml(MANAGED, 'other'), files);
    const [ep] = await createEndpoints(api.db.url, 1, groupId);

    // Gates and acknowledgements are refused on a shadow release, before any request.
    const gated = await create(strict.versionId, 'shadow', '--max-apply-failure-rate', '5%');
    expect(gated.code).toBe(1);
    expect(gated.stderr).toContain('a shadow release has no gates: give them to `releases promote`');
    const badStrategy = await create(strict.versionId, 'dark');
    expect(badStrategy.code).toBe(1);
    expect(badStrategy.stderr).toContain('--strategy must be one of immediate, staged, shadow');

    // A budget only for a shadow release, in whole ms (the API bounds it).
    const budgetStaged = await create(strict.versionId, 'staged', '--shadow-budget-ms', '500');
    expect(budgetStaged.code).toBe(1);
    expect(budgetStaged.stderr).toContain('--shadow-budget-ms needs --strategy shadow');
    const budgetBad = await create(strict.versionId, 'shadow', '--shadow-budget-ms', '1.5s');
    expect(budgetBad.code).toBe(1);
    expect(budgetBad.stderr).toContain('--shadow-budget-ms: "1.5s" is not a whole number of ms');

    const created = await create(strict.versionId, 'shadow', '--rings', '100', '--shadow-budget-ms', '750');
    expect(created.code, created.stderr).toBe(0);
    const id = /Shadow release ([0-9a-f-]{36}) \(revision 1\) started/.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect((await admin('GET', `/v1/releases/${id}`)).body.shadowBudgetMs).toBe(750);
    expect(created.stdout).toContain(`hookwarden releases shadow-report ${id}`);
    const listed = await cli(['releases', 'list', group]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+1\\s+\\S+\\s+1\\s+shadow\\s+completed\\s+1/1`, 'm'));

    const second = await create(other.versionId, 'shadow');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Shadow release ${id} is live in this group`);

    // The report over stored runs: three planted events the shadow layer would have denied.
    await ingestRecords(api, ep!, [
      ...shadowDeniedEvent(1, id!),
      ...shadowDeniedEvent(3, id!),
      ...shadowDeniedEvent(5, id!),
    ]);
    const table = await cli(['releases', 'shadow-report', id!]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(`Shadow release ${id}: 3 event(s), 3 shadow run(s)`);
    expect(table.stdout).toMatch(/would newly deny:\s+3/);
    expect(table.stdout).toMatch(/By endpoint \(events\):\nENDPOINT\s+WOULD DENY.*\n\S+\s+3\s+0\s+0\s+0\s+0/);
    expect(table.stdout).toMatch(/^wouldNewlyDeny\s/m);
    const json = await cli(['releases', 'shadow-report', id!, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ releaseId: id, events: 3, totals: { wouldNewlyDeny: 3 } });
    expect(JSON.parse((await cli(['-o', 'json', 'releases', 'shadow-report', id!])).stdout).events).toBe(3);

    // An auditor reads the report but cannot promote or abort.
    expect((await cli(['releases', 'shadow-report', id!], auditor)).code).toBe(0);
    const denied = await cli(['releases', 'promote', id!], auditor);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/403|forbidden|role/i);
    expect((await cli(['releases', 'abort', id!], auditor)).code).not.toBe(0);

    // Promote: refused naming the acknowledgement, then through with --yes-preview.
    const refused = await cli(['releases', 'promote', id!]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('promoting this version to group');
    expect(refused.stderr).toMatch(/re-run `hookwarden releases promote [0-9a-f-]{36}` with --ack-preview sha256:/);
    const promoted = await cli(['releases', 'promote', id!, '--yes-preview', '--rings', '50,100']);
    expect(promoted.code, promoted.stderr).toBe(0);
    const staged = /staged release ([0-9a-f-]{36}) \(revision 2\)/.exec(promoted.stdout)?.[1];
    expect(staged).toBeDefined();
    expect((await admin('GET', `/v1/releases/${staged}`)).body).toMatchObject({
      strategy: 'staged',
      rings: [50, 100],
      promotedFromId: id,
    });

    // Abort of a (new) shadow release: its layer goes everywhere.
    const again = await cli([
      '-o',
      'json',
      'releases',
      'create',
      group,
      '--version-id',
      other.versionId,
      '--strategy',
      'shadow',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const againId = JSON.parse(again.stdout).id as string;
    const aborted = await cli(['releases', 'abort', againId]);
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(aborted.stdout).toBe(
      `Aborted shadow release ${againId}: its shadow layer is removed from every endpoint.\n`,
    );
    expect((await admin('GET', `/v1/releases/${againId}`)).body.status).toBe('aborted');
  }, 120_000);

  it('GitOps: strategy "shadow" starts a shadow release of the new version beside the enforced one', async () => {
    const dir = path.join(tmp, 'layout');
    const version = (marker: string) => requirementsToml(MANAGED, marker);
    const write = async (marker: string, strategy: string) => {
      await fs.mkdir(path.join(dir, 'policies/guard/files'), { recursive: true });
      await fs.writeFile(path.join(dir, 'groups.toml'), '[groups.shadow-ops]\n');
      await fs.writeFile(
        path.join(dir, 'policies/guard/policy.toml'),
        `group = "shadow-ops"\n[rollout]\nstrategy = "${strategy}"\n${strategy === 'shadow' ? 'rings = [100]\n' : ''}`,
      );
      await fs.writeFile(path.join(dir, 'policies/guard/requirements.toml'), version(marker));
      await fs.writeFile(path.join(dir, 'policies/guard/files/check.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    };
    await write('one', 'immediate');
    expect((await cli(['apply', '-f', dir])).code).toBe(0);
    const group = (await admin('GET', '/v1/groups?limit=200')).body.items.find((g: any) => g.name === 'shadow-ops');
    const releases = async () => (await admin('GET', `/v1/groups/${group.id}/releases`)).body.items as any[];
    expect((await releases()).map((r) => [r.strategy, r.policyVersion])).toEqual([['immediate', 1]]);

    // A new version with strategy "shadow": plan shows the shadow release (no preview to acknowledge), apply starts it.
    await write('two', 'shadow');
    const plan = await cli(['plan', '-f', dir]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain('shadow: beside the enforced policy, deciding nothing, rings 100%');
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    const [shadow, enforced] = await releases();
    expect([shadow.strategy, shadow.policyVersion, enforced.strategy, enforced.policyVersion]).toEqual([
      'shadow',
      2,
      'immediate',
      1,
    ]);
    expect(applied.stdout + applied.stderr).toContain(`hookwarden releases shadow-report ${shadow.id}`);
    // Planned again: nothing to do while it runs, and a note saying what to do with it.
    const again = await cli(['plan', '-f', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`shadow release ${shadow.id} of policy "guard" version 2 is live`);
    const exported = path.join(tmp, 'exported');
    expect((await cli(['export', '-d', exported])).code).toBe(0);
    expect(await fs.readFile(path.join(exported, 'policies/guard/policy.toml'), 'utf8')).toMatch(
      /strategy = "shadow"\nrings = \[ 100 \]/,
    );
    // Another version while it is live: a located problem, nothing applied.
    await write('three', 'shadow');
    const blocked = await cli(['plan', '-f', dir]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`runs shadow release ${shadow.id}`);
    expect(blocked.stderr).toContain('promote or abort it');
    // Promoted: the group enforces version 2; version 3 may go to shadow next.
    expect((await cli(['releases', 'promote', shadow.id])).code).toBe(0);
    const next = await cli(['apply', '-f', dir]);
    expect(next.code, next.stderr).toBe(0);
    expect((await releases()).map((r) => [r.strategy, r.policyVersion, r.status])).toEqual([
      ['shadow', 3, 'completed'],
      ['staged', 2, 'rolling'],
      ['shadow', 2, 'promoted'],
      ['immediate', 1, 'completed'],
    ]);
  }, 120_000);
});
