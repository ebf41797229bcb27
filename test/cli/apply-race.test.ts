// The last line of defence of apply: a version created on the server after the plan (inside the window the
// pre-check cannot close) is refused by the API through the version base (If-Match / baseVersion → 409), and apply
// stops there, naming the policy, before any release.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../apps/cli/src/client/api-client';
import { CliError } from '../../apps/cli/src/cli/errors';
import { executePlan } from '../../apps/cli/src/gitops/apply';
import { readLayout } from '../../apps/cli/src/gitops/layout';
import { computePlan } from '../../apps/cli/src/gitops/plan';
import { fetchServerState } from '../../apps/cli/src/gitops/server-state';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

let api: TestApi;
let tmp: string;
beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-race-'));
});
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const TOML = (m: string) =>
  `[hooks]\nmanaged_dir = "/opt/r"\n\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/r/s.sh ${m}"\n`;

describe('apply against a concurrent edit', () => {
  it('a version created between plan and apply makes the server answer 409 and apply stops before the release', async () => {
    const admin = (m: string, p: string, body?: unknown) => call(api.baseUrl, m, p, { token: api.adminToken, body });
    const group = (await admin('POST', '/v1/groups', { name: 'race' })).body;
    const policy = (await admin('POST', '/v1/policies', { name: 'race-policy', groupId: group.id })).body;
    expect(
      (await admin('POST', `/v1/policies/${policy.id}/versions`, { toml: TOML('1'), baseVersion: 0 })).status,
    ).toBe(201);

    const dir = path.join(tmp, 'layout');
    await fs.mkdir(path.join(dir, 'policies/race'), { recursive: true });
    await fs.writeFile(path.join(dir, 'groups.toml'), '[groups.race]\n');
    await fs.writeFile(path.join(dir, 'policies/race/policy.toml'), 'name = "race-policy"\ngroup = "race"\n');
    await fs.writeFile(path.join(dir, 'policies/race/requirements.toml'), TOML('directory'));

    const client = new ApiClient({ baseUrl: api.baseUrl, token: api.adminToken });
    const desired = await readLayout(dir);
    const plan = await computePlan(client, desired, await fetchServerState(client, new Set(['race'])), {
      prune: false,
    });
    expect(plan.steps.map((s) => s.kind)).toEqual(['version.create', 'release.create']);

    // The concurrent edit lands after the plan was computed.
    expect(
      (await admin('POST', `/v1/policies/${policy.id}/versions`, { toml: TOML('other'), baseVersion: 1 })).status,
    ).toBe(201);

    const log: string[] = [];
    const err = await executePlan(client, plan, desired, { log: (l) => log.push(l) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toContain('policy "race-policy" changed on the server since the plan');
    expect((err as CliError).message).toContain('failed after 0 of 2 step(s)');
    expect((err as CliError).problems[0]?.message).toMatch(/latest version is 2/);
    expect(log).toEqual([]);
    expect((await admin('GET', `/v1/policies/${policy.id}`)).body.latestVersion).toBe(2);
    expect((await admin('GET', `/v1/groups/${group.id}/releases`)).body.items).toEqual([]);
  });
});
