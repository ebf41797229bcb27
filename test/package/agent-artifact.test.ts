// The endpoint artifact of `npm run package:agent`, installed into a temp prefix outside the repository, runs the
// whole endpoint flow against the real API and worker: enroll → apply → hooks dispatch (both CLIs) → upload.
import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, eventually } from '../support/audit-factories';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const MANAGED_DIR = '/opt/hw-artifact/hooks';

let api: TestApi;
let worker: INestApplicationContext;
let tmp: string;
let prefix: string;
let pkgDir: string;

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'hw-artifact-')));
  expect(path.relative(REPO, tmp).startsWith('..')).toBe(true);
  const out = path.join(tmp, 'out');
  await run(
    process.execPath,
    [path.join(REPO, 'scripts/package-agent.mjs'), '--out', out, '--no-tar', '--no-windows', '--quiet'],
    {
      cwd: REPO,
      timeout: 400_000,
      maxBuffer: 16 << 20,
    },
  );
  const [name] = (await fs.readdir(out)).filter((n) => n.startsWith('hookwarden-agent-'));
  pkgDir = path.join(out, name!);
  prefix = path.join(tmp, 'prefix');
  await run(path.join(pkgDir, 'install.sh'), ['--prefix', prefix], { cwd: tmp });
  api = await startTestApi();
  worker = await startTestWorker(api.config);
}, 600_000);

afterAll(async () => {
  await worker?.close();
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

// Runs an installed binary from the temp dir (no repository, no node_modules, a minimal PATH); stdin optional.
function installed(
  name: string,
  args: string[],
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(prefix, 'bin', name), args, {
      cwd: tmp,
      env: { PATH: '/usr/bin:/bin', HOME: path.join(tmp, 'home'), LANG: 'C' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const admin = async (method: string, p: string, body?: unknown): Promise<any> => {
  const res = await call(api.baseUrl, method, p, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

describe('the packaged agent (single executables installed to a prefix)', () => {
  it('installs both binaries and units that point at <prefix>/bin/hookwarden-agent', async () => {
    for (const name of ['hookwarden-agent', 'zerotwo-hooks']) {
      const st = await fs.stat(path.join(prefix, 'bin', name));
      expect(st.mode & 0o111).not.toBe(0);
      const v = await installed(name, ['--version']);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    }
    const unit = await fs.readFile(path.join(prefix, 'share/hookwarden/hookwarden-agent.service'), 'utf8');
    expect(unit).toContain(`ExecStart=${prefix}/bin/hookwarden-agent run`);
    const plist = await fs.readFile(path.join(prefix, 'share/hookwarden/com.hookwarden.agent.plist'), 'utf8');
    expect(plist).toContain(`<string>${prefix}/bin/hookwarden-agent</string>`);
    const sums = await fs.readFile(path.join(pkgDir, 'SHA256SUMS'), 'utf8');
    expect(sums).toMatch(/^[0-9a-f]{64} {2}bin\/hookwarden-agent$/m);
    expect(sums).toMatch(/^[0-9a-f]{64} {2}lib\/zerotwo-hooks\.cjs$/m);
  });

  it('enrolls, applies a release, dispatches hooks through both CLIs and uploads the records', async () => {
    const root = path.join(tmp, 'root');
    const stateDir = path.join(tmp, 'state');
    const home = path.join(tmp, 'home');
    await fs.mkdir(path.join(root, 'etc'), { recursive: true });
    await fs.mkdir(home, { recursive: true });
    await fs.writeFile(path.join(root, 'etc/machine-id'), `artifact-${Date.now()}-machine\n`);

    const group = await admin('POST', '/v1/groups', { name: `artifact-${Date.now()}` });
    const policy = await admin('POST', '/v1/policies', { name: `artifact-${Date.now()}`, groupId: group.id });
    const script = path.join(root, MANAGED_DIR, 'deny.sh');
    const toml =
      `[hooks]\nmanaged_dir = "${MANAGED_DIR}"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n` +
      `[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "${script}"\n`;
    const deny =
      '#!/bin/sh\nif grep -q "rm -rf"; then echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",' +
      '"permissionDecision":"deny","permissionDecisionReason":"no rm -rf"}}\'; fi\n';
    const version = await admin('POST', `/v1/policies/${policy.id}/versions`, {
      toml,
      files: [{ path: 'deny.sh', content: deny, mode: 0o755 }],
      baseVersion: 0,
    });
    const secret = await admin('POST', `/v1/groups/${group.id}/enrollment-secrets`, { name: 'artifact' });

    const enrolled = await installed('hookwarden-agent', [
      'enroll',
      '--server',
      api.baseUrl,
      '--secret',
      secret.secret,
      '--state-dir',
      stateDir,
      '--root',
      root,
    ]);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8'));

    await admin('POST', `/v1/groups/${group.id}/releases`, { policyVersionId: version.id });
    const applied = await installed('hookwarden-agent', ['run', '--once', '--state-dir', stateDir, '--root', root]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await fs.readFile(script, 'utf8')).toBe(deny);
    expect(await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8')).toBe(version.toml);

    const event = (command: string) =>
      JSON.stringify({ session_id: 's', turn_id: 't', cwd: tmp, tool_name: 'Bash', tool_input: { command } });
    const agentArgs = ['hooks', 'dispatch', 'PreToolUse', '--root', root, '--state-dir', stateDir, '--home', home];
    const denied = await installed('hookwarden-agent', agentArgs, event('rm -rf ./x'));
    expect(denied.code, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout).outcome).toMatchObject({ decision: 'deny', reason: 'no rm -rf' });
    const allowed = await installed('hookwarden-agent', agentArgs, event('ls'));
    expect(JSON.parse(allowed.stdout).outcome.decision).toBeUndefined();
    // Every process starts from the same executable (a startup snapshot, when a row asks for one): ids must be fresh.
    const ids = [denied, allowed].flatMap((r) => {
      const out = JSON.parse(r.stdout) as { runs: Array<{ id: string; dispatchId: string }> };
      return out.runs.flatMap((run) => [run.id, run.dispatchId]);
    });
    expect(new Set(ids).size).toBe(4);

    // The engine's own CLI reads the same managed layer (it spools nothing: no --spool).
    const core = await installed(
      'zerotwo-hooks',
      ['dispatch', 'PreToolUse', '--requirements', path.join(root, 'etc/zerotwo/requirements.toml'), '--home', home],
      event('rm -rf /'),
    );
    expect(core.code, core.stderr).toBe(0);
    expect(JSON.parse(core.stdout).outcome.decision).toBe('deny');

    const uploaded = await installed('hookwarden-agent', ['upload-runs', '--once', '--state-dir', stateDir]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const auditor = await auditorToken(api);
    const items = await eventually(async () => {
      const page = await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${creds.endpointId}`, { token: auditor });
      return page.body.items.length === 2 ? page.body.items : null;
    });
    expect(items.map((r: { decision: string | null }) => r.decision).sort()).toEqual(['deny', null].sort());
    expect(items.map((r: { policyRevision: unknown }) => String(r.policyRevision))).toEqual(['1', '1']);
  }, 120_000);
});
