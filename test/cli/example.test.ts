// The documented example (examples/gitops) applied to a fresh server: everything is created in dependency order,
// a second plan finds nothing, and an export of the result plans to nothing as well.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { runCli } from '../support/cli';
import { call } from '../support/http';

const EXAMPLE = path.resolve(__dirname, '../../examples/gitops');
let api: TestApi;
let tmp: string;
beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-example-'));
});
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCli(['--config', path.join(tmp, 'c.toml'), ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: api.adminToken,
  });

describe('examples/gitops', () => {
  it('applies to a fresh server and round-trips through export', async () => {
    const plan = await cli(['plan', '-f', EXAMPLE, '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(JSON.parse(plan.stdout).steps.map((s: any) => `${s.kind} ${s.policy ?? s.group}`)).toEqual([
      'group.update default',
      'capture.update default',
      'group.create engineering',
      'capture.update engineering',
      'group.create canary',
      'policy.create baseline',
      'policy.create canary-checks',
      'version.create baseline',
      'version.create canary-checks',
      'release.create baseline',
      'release.create canary-checks',
    ]);
    const apply = await cli(['apply', '-f', EXAMPLE]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Applied 11 change(s)');

    const again = await cli(['plan', '-f', EXAMPLE]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');
    expect(again.stdout).toMatch(/note: release .* of policy "baseline" is still rolling out in group "engineering"/);

    const groups = (await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken })).body.items;
    const eng = groups.find((g: any) => g.name === 'engineering');
    const settings = (await call(api.baseUrl, 'GET', `/v1/groups/${eng.id}/audit-settings`, { token: api.adminToken }))
      .body;
    expect(settings).toEqual({
      capture: 'excerpts',
      maxExcerptBytes: 2048,
      redactPatterns: ['ACME-[0-9]{6}'],
      useDefaultRedact: true,
      inventoryCommands: 'program',
    });
    const releases = (await call(api.baseUrl, 'GET', `/v1/groups/${eng.id}/releases`, { token: api.adminToken })).body
      .items;
    expect(releases[0]).toMatchObject({
      strategy: 'staged',
      status: 'rolling',
      rings: [5, 25, 100],
      ringIntervalSec: 3600,
      maxApplyFailureRate: 0.02,
      maxHookFailureRate: 0.1,
      minHookRuns: 50,
      minReportingEndpoints: 3,
    });

    const out = path.join(tmp, 'exported');
    const exp = await cli(['export', '-d', out]);
    expect(exp.code, exp.stderr).toBe(0);
    const round = await cli(['plan', '-f', out]);
    expect(round.code, round.stdout + round.stderr).toBe(0);
    expect(round.stdout).toContain('No changes');
    const manifest = await fs.readFile(path.join(out, 'policies/baseline/policy.toml'), 'utf8');
    expect(manifest).toContain('strategy = "staged"');
    expect(manifest).toContain('rings = [ 5, 25, 100 ]');
  }, 180_000);
});
