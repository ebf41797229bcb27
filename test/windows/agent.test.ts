// The agent on Windows, under Wine, against the real API and worker: the Windows Node runs the built agent, enrolls
// with the agent's own `enroll`, applies a release with windows_managed_dir and a managed .cmd hook (in place: Wine
// has no symlinks), denies through `hooks dispatch`, ships the run record, repairs a tampered file, and never lets
// the engine run a mixed layer while the agent is killed at random points of a switch.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';
import { describeWine, runWinNode, spawnWine, nodeExe, winPath } from '../support/wine';

const AGENT = path.resolve(__dirname, '../../apps/agent-sync/dist/cli/main.js');
/** Switches with a kill at a random point (each costs a few seconds of Wine start-up). */
const KILLED_SWITCHES = Number(process.env.HW_WINE_SWITCHES ?? 8);
let api: TestApi;
let worker: INestApplicationContext;
let tmp: string;
let root: string;
let state: string;
let groupId: string;
let policyId: string;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });
const agentArgs = (): string[] => ['--state-dir', winPath(state), '--root', winPath(root)];
const runAgentWin = (args: string[], stdin?: string) => runWinNode(AGENT, args, { stdin });

// A policy whose managed .cmd hook (in windows_managed_dir) denies Bash with "<marker> script-<marker of the file>".
function policy(marker: string): string {
  const cmd = `${winPath(root)}\\HW\\hooks\\deny.cmd`;
  return (
    `[hooks]\nmanaged_dir = "/opt/hw-win"\nwindows_managed_dir = 'C:\\HW\\hooks'\n\n` +
    `[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
    `command = "/opt/hw-win/deny.sh ${marker}"\ncommand_windows = '"${cmd}" ${marker}'\n`
  );
}
const denyCmd = (marker: string) => [
  { path: 'deny.cmd', content: `@echo off\r\necho %1 script-${marker}>&2\r\nexit /b 2\r\n` },
];

// Authors and releases a version; returns its canonical requirements.toml.
async function release(marker: string): Promise<string> {
  const v = await createVersion(api, policyId, policy(marker), denyCmd(marker));
  const r = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return v.toml;
}

// `hookwarden-agent hooks dispatch PreToolUse` for a Bash call; returns the printed result.
async function dispatch(): Promise<{ outcome: { decision?: string; reason?: string }; runs: unknown[] }> {
  const input = { cwd: winPath(tmp), session_id: 'win-e2e', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } };
  const r = await runAgentWin(['hooks', 'dispatch', 'PreToolUse', ...agentArgs()], JSON.stringify(input));
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const hookFile = () => path.join(root, 'HW', 'hooks', 'deny.cmd');
const requirementsFile = () => path.join(root, 'ProgramData', 'ZeroTwo', 'requirements.toml');
const layerDir = () => path.join(root, 'ProgramData', 'ZeroTwo', '.hookwarden-layer');

describeWine('the agent on Windows (Wine)', () => {
  beforeAll(async () => {
    await nodeExe();
    api = await startTestApi();
    worker = await startTestWorker(api.config);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-win-agent-'));
    root = path.join(tmp, 'root');
    state = path.join(tmp, 'state');
    await fs.mkdir(path.join(root, 'etc'), { recursive: true });
    await fs.writeFile(path.join(root, 'etc', 'machine-id'), `win-e2e-${Date.now()}-machine\n`);
    ({ groupId, policyId } = await createGroupWithPolicy(api));
  }, 240_000);
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('enrolls, applies windows_managed_dir in place, denies through the managed .cmd hook, ships the record', async () => {
    const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'win' })).body.secret;
    const enroll = await runAgentWin(['enroll', '--server', api.baseUrl, '--secret', secret, ...agentArgs()]);
    expect(enroll.code, enroll.stderr).toBe(0);
    const toml = await release('v1');
    const once = await runAgentWin(['run', '--once', ...agentArgs()]);
    expect(once.code, once.stderr).toBe(0);
    expect(await fs.readFile(requirementsFile(), 'utf8')).toBe(toml);
    expect(await fs.readFile(hookFile(), 'utf8')).toBe(denyCmd('v1')[0]!.content);
    // No links under Wine: the agent probed that and switched in place behind the gate.
    const gate = JSON.parse(await fs.readFile(path.join(layerDir(), 'layer-state.json'), 'utf8'));
    expect(gate).toMatchObject({ state: 'stable', managedDir: `${winPath(root)}\\HW\\hooks` });

    const list = await runAgentWin(['hooks', 'list', ...agentArgs()]);
    expect(list.stdout).toContain(`"${winPath(root)}\\HW\\hooks\\deny.cmd" v1`);
    const r = await dispatch();
    expect(r.outcome).toMatchObject({ decision: 'deny', reason: 'v1 script-v1' });

    const up = await runAgentWin(['upload-runs', '--once', '--state-dir', winPath(state)]);
    expect(up.code, up.stderr).toBe(0);
    const creds = JSON.parse(await fs.readFile(path.join(state, 'credentials.json'), 'utf8'));
    const auditor = await auditorToken(api);
    const page = await waitFor(
      async () => {
        const res = await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${creds.endpointId}`, { token: auditor });
        return res.body.items?.length > 0 ? res.body : null;
      },
      30_000,
      'the run record in the API',
    );
    expect(page.items[0]).toMatchObject({ event: 'PreToolUse', toolName: 'Bash', managed: true });
  }, 240_000);

  it('repairs a tampered managed file; the engine refuses the tampered layer meanwhile', async () => {
    await fs.writeFile(hookFile(), '@echo off\r\nexit /b 0\r\n');
    const refused = await dispatch();
    expect(refused.outcome.decision).toBeUndefined();
    expect(refused.runs).toEqual([]);
    const once = await runAgentWin(['run', '--once', ...agentArgs()]);
    expect(once.code, once.stderr).toBe(0);
    expect(await fs.readFile(hookFile(), 'utf8')).toBe(denyCmd('v1')[0]!.content);
    expect((await dispatch()).outcome).toMatchObject({ decision: 'deny', reason: 'v1 script-v1' });
  }, 240_000);

  it('a managed file held open by a running program is replaced once it is closed (retried, never half-written)', async () => {
    const holder = path.join(tmp, 'holder.js');
    const ready = path.join(tmp, 'holder.ready');
    const done = path.join(tmp, 'holder.release');
    await fs.writeFile(
      holder,
      `const fs = require('fs');\nconst fd = fs.openSync(process.argv[2], 'r');\nfs.writeFileSync(process.argv[3], 'open');\n` +
        `const t = setInterval(() => { if (fs.existsSync(process.argv[4])) { fs.closeSync(fd); clearInterval(t); } }, 50);\n`,
    );
    const h = await spawnWine(await nodeExe(), [winPath(holder), winPath(hookFile()), winPath(ready), winPath(done)], {
      timeoutMs: 120_000,
    });
    await waitFor(async () => (await fs.stat(ready).catch(() => null)) !== null, 60_000, 'the holder to open the file');
    await release('vu');
    const agent = await spawnWine(await nodeExe(), [winPath(AGENT), 'run', '--once', ...agentArgs()], {
      timeoutMs: 120_000,
    });
    const dir = path.dirname(hookFile());
    // The agent's replacement waits beside the open file (Windows refuses to rename over it) ...
    await waitFor(
      async () => (await fs.readdir(dir)).some((e) => e.startsWith('.deny.cmd.')) || agent.child.exitCode !== null,
      60_000,
      'the replacement to be staged beside the open file',
    );
    expect(await fs.readFile(hookFile(), 'utf8')).toBe(denyCmd('v1')[0]!.content);
    await fs.writeFile(done, 'close');
    await h.exited;
    // ... and lands whole once the file is closed.
    expect(await agent.exited, agent.stderr()).toBe(0);
    expect(await fs.readFile(hookFile(), 'utf8')).toBe(denyCmd('vu')[0]!.content);
    expect((await fs.readdir(dir)).filter((e) => e.endsWith('.tmp'))).toEqual([]);
    expect((await dispatch()).outcome).toMatchObject({ decision: 'deny', reason: 'vu script-vu' });
  }, 240_000);

  it(`${KILLED_SWITCHES} switches with the agent killed at random points: the engine never runs a mixed layer`, async () => {
    let killed = 0;
    let refused = 0;
    let last = 'v1';
    for (let i = 2; i < 2 + KILLED_SWITCHES; i++) {
      last = `v${i}`;
      await release(last);
      const p = await spawnWine(await nodeExe(), [winPath(AGENT), 'run', '--once', ...agentArgs()], {
        env: { HOOKWARDEN_AGENT_TEST_STEP_DELAY_MS: '150' },
        timeoutMs: 120_000,
      });
      await waitFor(
        async () => (await fs.readdir(layerDir())).some((e) => e.startsWith('.staging-')) || p.child.exitCode !== null,
        60_000,
        'the agent to start staging',
      );
      await new Promise((r) => setTimeout(r, Math.random() * 900));
      if (p.child.exitCode === null) {
        p.child.kill('SIGKILL');
        killed++;
      }
      await p.exited;
      const r = await dispatch();
      // Either the engine refused the managed layer (a switch was interrupted) or it ran one complete version.
      if (r.outcome.decision !== undefined) expect(r.outcome.reason).toMatch(/^(v\w+) script-\1$/);
      else {
        expect(r.runs).toEqual([]);
        refused++;
      }
    }
    expect(killed).toBeGreaterThan(0);
    console.log(`windows switches: ${KILLED_SWITCHES}, agent killed in ${killed}, engine refused ${refused}`);
    const once = await runAgentWin(['run', '--once', ...agentArgs()]);
    expect(once.code, once.stderr).toBe(0);
    expect((await dispatch()).outcome).toMatchObject({ decision: 'deny', reason: `${last} script-${last}` });
  }, 290_000);
});
