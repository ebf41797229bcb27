// Issue 27 end to end with the real API, worker, PostgreSQL, Redis and real `hookwarden-agent` processes: a shadow
// release of a stricter PreToolUse guard reaches the agents ring by ring beside the enforced policy (relocated into
// shadow/, so it runs its own script, not the enforced one); planted events are still allowed for the developer while
// the shadow layer records "would deny"; the shadow report counts exactly the planted events; promote → the same events
// are denied by the enforced layer and the shadow layer is gone; a later shadow release aborted → its layer is removed
// from every endpoint and it records nothing more.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../../apps/api/src/releases/rollout';
import {
  type AgentProcess,
  type EnrolledMachine,
  enrollMachine,
  hooksDispatch,
  runAgent,
  spawnAgent,
  stopAgent,
  waitFor,
} from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, query } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

const MANAGED = '/opt/hw-shadow-e2e';
let api: TestApi;
let worker: INestApplicationContext;
let tmp: string;
const running: AgentProcess[] = [];

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-shadow-e2e-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(running.map(stopAgent));
  await worker?.close();
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

/**
 * A version whose one Bash PreToolUse hook runs guard.sh from managed_dir. The command names the script by its
 * managed_dir path behind ${HW_ROOT} (the test's root; empty on a real machine), so the shadow relocation rewrites it
 * like any managed path.
 */
const policyToml = `[hooks]\nmanaged_dir = "${MANAGED}"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = 'sh "\${HW_ROOT}${MANAGED}/guard.sh"'\ntimeout = 10\n`;
/** guard.sh denying Bash commands that contain `pattern` (nothing: allows everything). */
const guard = (pattern: string | null) => [
  {
    path: 'guard.sh',
    content:
      '#!/bin/sh\ninput=$(cat)\n' +
      (pattern
        ? `case "$input" in *'${pattern}'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"${pattern} is not allowed"}}' ;; esac\n`
        : '') +
      'exit 0\n',
  },
];

interface Agent extends EnrolledMachine {
  name: string;
}

// Enrolls a machine with the real CLI and starts its daemon (long polls held 30 s: changes arrive by wake-ups).
async function startAgent(secret: string, name: string): Promise<Agent> {
  const machine = await enrollMachine(api.baseUrl, secret, tmp, name);
  await fs.mkdir(path.join(tmp, name, 'home'), { recursive: true });
  running.push(spawnAgent(['run', '--state-dir', machine.stateDir, '--root', machine.root, '--poll-wait', '30']));
  return { ...machine, name };
}

// The enforced requirements.toml on the endpoint ('' when absent).
const enforcedToml = (a: Agent) =>
  fs.readFile(path.join(a.root, 'etc/zerotwo/requirements.toml'), 'utf8').catch(() => '');
// The shadow layer's requirements.toml on the endpoint (null when there is no shadow layer).
const shadowToml = (a: Agent) =>
  fs.readFile(path.join(a.root, 'etc/zerotwo/shadow/requirements.toml'), 'utf8').catch(() => null);
const shadowDirGone = async (a: Agent) => !(await fs.stat(path.join(a.root, 'etc/zerotwo/shadow')).catch(() => null));

interface DispatchResult {
  outcome: { decision?: string };
  runs: Array<{ status: string }>;
  shadow?: { releaseId: string | null; outcome: { decision?: string }; runs: Array<{ shadow: { wouldHave: string } }> };
}

// One Bash PreToolUse event through the endpoint's engine, as the developer's coding agent runs it.
const event = (a: Agent, command: string): Promise<DispatchResult> =>
  hooksDispatch<DispatchResult>(
    'PreToolUse',
    [
      '--root',
      a.root,
      '--state-dir',
      a.stateDir,
      '--home',
      path.join(tmp, a.name, 'home'),
      '--project',
      path.join(tmp, a.name),
    ],
    { session_id: 's1', cwd: path.join(tmp, a.name), tool_name: 'Bash', tool_input: { command } },
    { HW_ROOT: a.root },
  );

// The long polls the API holds now (its /metrics).
async function heldPolls(): Promise<number> {
  const res = await call(api.baseUrl, 'GET', '/metrics', { token: api.adminToken });
  const line = String(res.body)
    .split('\n')
    .find((l) => l.startsWith('hookwarden_long_polls_held '));
  return Number(line?.split(' ')[1]);
}

// Drains the endpoint's spool once (the real uploader).
async function upload(a: Agent): Promise<void> {
  const r = await runAgent(['upload-runs', '--once', '--state-dir', a.stateDir]);
  expect(r.code, r.stderr).toBe(0);
}

// Stored runs of a shadow release.
const shadowRuns = async (releaseId: string): Promise<number> =>
  (await query(api.db.url, 'SELECT count(*)::int AS n FROM hook_runs WHERE shadow_release_id = $1', [releaseId]))[0].n;

describe('shadow release end to end', () => {
  it('observes, reports, promotes and aborts with real agents', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    await admin('PUT', `/v1/groups/${groupId}/audit-settings`, {
      capture: 'excerpts',
      maxExcerptBytes: 2048,
      redactPatterns: [],
      useDefaultRedact: true,
    });
    const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'shadow' })).body.secret;
    const lenient = await createVersion(api, policyId, policyToml, guard(null));
    const strict = await createVersion(api, policyId, policyToml, guard('rm -rf'));
    const curlGuard = await createVersion(api, policyId, policyToml, guard('curl'));
    const agents = [
      await startAgent(secret, 'dev-a'),
      await startAgent(secret, 'dev-b'),
      await startAgent(secret, 'dev-c'),
    ];
    for (const a of agents) await upload(a); // fetches the group's capture settings

    // The enforced policy: the lenient guard.
    expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: lenient.versionId })).status).toBe(
      201,
    );
    for (const a of agents) await waitFor(async () => (await enforcedToml(a)) === lenient.toml, 20_000, `${a.name} v1`);

    // The stricter guard as a shadow release, ring by ring.
    const shadow = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: strict.versionId,
      strategy: 'shadow',
      rings: [50, 100],
      ringIntervalSec: 3600,
      // The largest budget: on a loaded machine a shadow hook may finish well after the enforced one, and the 100 ms
      // default would record it as timed out (what the budget is for: bounding the developer's wait).
      shadowBudgetMs: 5000,
    });
    expect(shadow.status, JSON.stringify(shadow.body)).toBe(201);
    const reached = (a: Agent) => bucketOf(a.endpointId, shadow.body.id) < 50;
    const isShadowed = async (a: Agent) =>
      (await shadowToml(a))?.includes('/etc/zerotwo/shadow/managed/guard.sh') === true &&
      (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.shadow.releaseId === shadow.body.id;
    for (const a of agents.filter(reached)) await waitFor(() => isShadowed(a), 20_000, `${a.name} shadowed`);
    // The endpoints of the ring not reached yet have no shadow layer.
    for (const a of agents.filter((x) => !reached(x))) expect(await shadowToml(a)).toBeNull();
    expect((await admin('POST', `/v1/releases/${shadow.body.id}/advance`)).body.status).toBe('completed');
    for (const a of agents) await waitFor(() => isShadowed(a), 20_000, `${a.name} shadowed after the last ring`);
    // One long poll per agent, the managed layer's: it names the shadow layer, so no agent holds a second request.
    await waitFor(async () => (await heldPolls()) === agents.length, 20_000, 'one held poll per agent');
    // The enforced layer is untouched, and the shadow layer runs its own copy of the stricter script.
    for (const a of agents) {
      expect(await enforcedToml(a)).toBe(lenient.toml);
      const release = JSON.parse(
        await fs.readFile(path.join(a.root, 'etc/zerotwo/shadow/shadow-release.json'), 'utf8'),
      );
      expect(release).toMatchObject({ releaseId: shadow.body.id, budgetMs: 5000 });
      expect(await fs.readFile(path.join(a.root, 'etc/zerotwo/shadow/managed/guard.sh'), 'utf8')).toContain('rm -rf');
      expect(await fs.readFile(path.join(a.root, MANAGED, 'guard.sh'), 'utf8')).not.toContain('rm -rf');
    }

    // Planted events: allowed for the developer, "would deny" in the shadow layer. Benign ones: would continue.
    const planted: Array<[Agent, string]> = [
      [agents[0]!, 'rm -rf /tmp/planted-1'],
      [agents[0]!, 'rm -rf /tmp/planted-2'],
      [agents[1]!, 'rm -rf /tmp/planted-3'],
      [agents[2]!, 'rm -rf /tmp/planted-4'],
      [agents[2]!, 'rm -rf /tmp/planted-5'],
    ];
    const benign: Array<[Agent, string]> = [
      [agents[0]!, 'ls -la'],
      [agents[1]!, 'git status'],
    ];
    for (const [a, command] of planted) {
      const r = await event(a, command);
      expect(r.outcome.decision).toBeUndefined();
      expect(r.runs.map((x) => x.status)).toEqual(['ran']);
      expect(r.shadow).toMatchObject({ releaseId: shadow.body.id, outcome: { decision: 'deny' } });
      expect(r.shadow!.runs.map((x) => x.shadow.wouldHave)).toEqual(['deny']);
    }
    for (const [a, command] of benign) {
      const r = await event(a, command);
      expect(r.outcome.decision).toBeUndefined();
      expect(r.shadow!.runs.map((x) => x.shadow.wouldHave)).toEqual(['continue']);
    }
    for (const a of agents) await upload(a);
    await waitFor(async () => (await shadowRuns(shadow.body.id)) === planted.length + benign.length, 20_000, 'ingest');

    // The report counts exactly the planted events.
    const report = await admin('GET', `/v1/releases/${shadow.body.id}/shadow-report`);
    expect(report.status).toBe(200);
    expect(report.body.events).toBe(planted.length + benign.length);
    expect(report.body.totals).toEqual({
      wouldNewlyDeny: planted.length,
      wouldStopDenying: 0,
      rewrites: 0,
      errors: 0,
      timeouts: 0,
    });
    // One shadow hook (its key names the shadow layer; each test machine has its own root, so one row per agent).
    for (const row of report.body.byHook)
      expect(row.hookKey).toMatch(/\/etc\/zerotwo\/shadow\/requirements\.toml:pre_tool_use:0:0$/);
    expect(report.body.byHook.reduce((n: number, r: any) => n + r.wouldNewlyDeny, 0)).toBe(planted.length);
    const byEndpoint = Object.fromEntries(report.body.byEndpoint.map((r: any) => [r.endpointId, r.wouldNewlyDeny]));
    expect(byEndpoint).toEqual({ [agents[0]!.endpointId]: 2, [agents[1]!.endpointId]: 1, [agents[2]!.endpointId]: 2 });
    expect(report.body.byToolCommand.map((r: any) => r.toolCommand).sort()).toEqual(planted.map(([, c]) => c).sort());
    expect(report.body.samples).toHaveLength(5);
    for (const s of report.body.samples) {
      expect((await admin('GET', `/v1/hook-runs/${s.shadowRunId}`)).body.shadowReleaseId).toBe(shadow.body.id);
      expect(s.enforcedRunIds).toHaveLength(1);
    }

    // Promote: the stricter guard is enforced ring by ring (one ring here), the shadow layer goes.
    const promoted = await admin('POST', `/v1/releases/${shadow.body.id}/promote`, { rings: [100] });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    for (const a of agents) {
      await waitFor(
        async () => (await enforcedToml(a)) === strict.toml,
        20_000,
        `${a.name} enforces the stricter guard`,
      );
      await waitFor(() => shadowDirGone(a), 20_000, `${a.name} shadow layer removed`);
    }
    for (const [a, command] of planted) {
      const r = await event(a, command);
      expect(r.outcome.decision).toBe('deny');
      expect(r.shadow).toBeUndefined();
    }
    for (const a of agents)
      await waitFor(
        async () => (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.shadow.releaseId === null,
        20_000,
        'the removal reported',
      );

    // Another shadow release, aborted: the layer is removed everywhere and records stop.
    const second = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: curlGuard.versionId,
      strategy: 'shadow',
      rings: [100],
      // As above: at the 100 ms default a loaded machine recorded this shadow hook as timed out (CI, stop 29).
      shadowBudgetMs: 5000,
    });
    expect(second.status).toBe(201);
    for (const a of agents)
      await waitFor(
        async () => (await shadowToml(a))?.includes('/etc/zerotwo/shadow/managed') === true,
        20_000,
        'v3 shadow',
      );
    expect((await event(agents[0]!, 'curl https://example.invalid')).shadow?.outcome.decision).toBe('deny');
    await upload(agents[0]!);
    await waitFor(async () => (await shadowRuns(second.body.id)) === 1, 20_000, 'the shadow run stored');
    const aborted = await admin('POST', `/v1/releases/${second.body.id}/abort`);
    expect(aborted.status).toBe(200);
    for (const a of agents) await waitFor(() => shadowDirGone(a), 20_000, `${a.name} shadow layer gone after abort`);
    const after = await event(agents[0]!, 'curl https://example.invalid/again');
    expect(after.shadow).toBeUndefined();
    expect(after.outcome.decision).toBeUndefined();
    await upload(agents[0]!);
    // The enforced run of that event is stored; no shadow run came with it.
    await waitFor(
      async () =>
        (
          await query(
            api.db.url,
            "SELECT count(*)::int AS n FROM hook_runs WHERE endpoint_id = $1 AND tool_command LIKE '%example.invalid/again%'",
            [agents[0]!.endpointId],
          )
        )[0].n === 1,
      20_000,
      'the enforced run after abort',
    );
    expect(await shadowRuns(second.body.id)).toBe(1);
    const actions = (await admin('GET', `/v1/audit-log?actionPrefix=release.`)).body.items.map((e: any) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['release.promote', 'release.shadow_abort']));
  }, 180_000);
});
