// End to end with real processes: `hookwarden-agent hooks dispatch` spools records, the uploader ships them,
// the API + worker store them. Server outage, duplicate delivery, a record deleted by hand, and redaction.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCredentials } from '../../apps/agent-sync/src/state/credentials';
import { createApp } from '../../apps/api/src/bootstrap';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, eventually, type TestEndpoint } from '../support/audit-factories';
import { startTestWorker } from '../support/worker';
import { call } from '../support/http';

const run = promisify(execFile);
const AGENT = path.resolve(__dirname, '../../apps/agent-sync/dist/cli/main.js');
const HOOK = path.resolve(__dirname, 'fixtures/leaky-hook.sh');
const SECRET = 'hunter2-supersecret-value';

let api: TestApi;
let port: number;
let app: NestFastifyApplication;
let worker: INestApplicationContext;
let db: pg.Pool;
let auditor: string;

interface Endpoint {
  ep: TestEndpoint;
  dir: string;
  root: string;
  state: string;
  spool: string;
}

// An enrolled endpoint in a temp dir with a managed requirements.toml running the leaky hook.
async function endpoint(): Promise<Endpoint> {
  const [ep] = await createEndpoints(api.db.url, 1);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-audit-e2e-'));
  const root = path.join(dir, 'root');
  const state = path.join(dir, 'state');
  mkdirSync(path.join(root, 'etc/zerotwo'), { recursive: true });
  mkdirSync(path.join(dir, 'home'));
  writeFileSync(
    path.join(root, 'etc/zerotwo/requirements.toml'),
    `[hooks]\n\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "${HOOK}"\n`,
  );
  await writeCredentials(state, {
    serverUrl: `http://127.0.0.1:${port}`,
    endpointId: ep!.id,
    groupId: ep!.groupId,
    credential: ep!.credential,
    machineId: `m-${ep!.id}`,
    publicKeys: [{ kid: 'unused', publicKeyPem: 'unused' }],
    enrolledAt: new Date().toISOString(),
  });
  return { ep: ep!, dir, root, state, spool: path.join(state, 'spool') };
}

// One hook event through the agent: `hookwarden-agent hooks dispatch PreToolUse` with the event on stdin.
async function dispatch(e: Endpoint, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    const child = spawn(
      process.execPath,
      [
        AGENT,
        'hooks',
        'dispatch',
        'PreToolUse',
        '--root',
        e.root,
        '--state-dir',
        e.state,
        '--home',
        path.join(e.dir, 'home'),
        '--project',
        e.dir,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end(
      JSON.stringify({
        session_id: 's1',
        turn_id: `t${i}`,
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        cwd: e.dir,
      }),
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect((JSON.parse(out) as { runs: unknown[] }).runs).toHaveLength(1);
  }
}

// Drains the spool once with the real agent (`upload-runs --once`).
async function uploadOnce(e: Endpoint): Promise<void> {
  await run(process.execPath, [AGENT, 'upload-runs', '--once', '--state-dir', e.state]);
}

// Rows stored for an endpoint: count and distinct seq.
async function stored(e: Endpoint): Promise<{ n: number; d: number }> {
  const r = await db.query(
    'SELECT count(*)::int AS n, count(DISTINCT seq)::int AS d FROM hook_runs WHERE endpoint_id = $1',
    [e.ep.id],
  );
  return r.rows[0] as { n: number; d: number };
}

// Every spooled line of an endpoint (open and closed segments) as one text ('' before the first record).
const spooledText = (e: Endpoint): string =>
  (existsSync(e.spool) ? readdirSync(e.spool) : [])
    .map((n) => (n.includes('ndjson') ? readFileSync(path.join(e.spool, n), 'utf8') : ''))
    .join('');

// Closed segment files of a spool.
const segments = (e: Endpoint): string[] => readdirSync(e.spool).filter((n) => /^seg-\d+-\d+\.ndjson$/.test(n));

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '0' });
  app = api.app;
  port = Number(new URL(api.baseUrl).port);
  worker = await startTestWorker(api.config);
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
  auditor = await auditorToken(api);
});

afterAll(async () => {
  await db?.end();
  await worker?.close();
  await app?.close();
  await api?.db.drop();
});

describe('agent → API → worker → PostgreSQL', () => {
  it('records from hook runs reach the API, redacted on the endpoint; the spool is emptied only after 2xx', async () => {
    const e = await endpoint();
    await dispatch(e, 3);
    const spooled = spooledText(e);
    expect(spooled).toContain('[REDACTED]');
    expect(spooled).not.toContain(SECRET); // the upload body is these lines, verbatim
    await uploadOnce(e);
    expect(segments(e)).toEqual([]);
    await eventually(async () => (await stored(e)).n === 3);
    const page = await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${e.ep.id}`, { token: auditor });
    expect(page.body.items).toHaveLength(3);
    expect(page.body.items[0]).toMatchObject({ event: 'PreToolUse', toolName: 'Bash', managed: true, status: 'ran' });
    const dump = await db.query('SELECT record::text AS t FROM hook_runs WHERE endpoint_id = $1', [e.ep.id]);
    for (const row of dump.rows as Array<{ t: string }>) expect(row.t).not.toContain(SECRET);
    const findings = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${e.ep.id}`, { token: auditor });
    expect(findings.body.items).toEqual([]);
  });

  it("the group's useDefaultRedact reaches the hook path: off, only its own patterns redact; on, both", async () => {
    const e = await endpoint();
    const settings = { capture: 'excerpts', maxExcerptBytes: 2048, redactPatterns: ['deploying'] };
    // The admin changes the group's settings; the agent fetches them on its next upload round.
    const govern = async (useDefaultRedact: boolean): Promise<void> => {
      const put = await call(api.baseUrl, 'PUT', `/v1/groups/${e.ep.groupId}/audit-settings`, {
        token: api.adminToken,
        body: { ...settings, useDefaultRedact },
      });
      expect(put.status).toBe(200);
      await uploadOnce(e); // refreshes the cached settings, then drains the spool
      expect(spooledText(e)).toBe('');
    };
    await govern(false);
    await dispatch(e);
    const customOnly = spooledText(e);
    expect(customOnly).toContain('[REDACTED] with token=');
    expect(customOnly).not.toContain('deploying');
    expect(customOnly).toContain(SECRET); // the default patterns are off
    await govern(true);
    await dispatch(e);
    const both = spooledText(e);
    expect(both).toContain('[REDACTED]');
    expect(both).not.toContain('deploying');
    expect(both).not.toContain(SECRET);
  });

  it('the API stopped while hooks keep running, then restarted: every record arrives exactly once', async () => {
    const e = await endpoint();
    const uploader: ChildProcess = spawn(
      process.execPath,
      [AGENT, 'upload-runs', '--state-dir', e.state, '--interval-ms', '200'],
      { stdio: 'ignore' },
    );
    try {
      await dispatch(e, 3);
      await eventually(async () => (await stored(e)).n === 3, 20_000);
      await app.close(); // the server goes away; hooks keep running and spooling
      await dispatch(e, 5);
      await new Promise((r) => setTimeout(r, 1500)); // uploads fail meanwhile; the spool keeps everything
      app = await createApp(api.config, { bufferLogs: false });
      await app.listen({ port, host: '127.0.0.1' });
      await dispatch(e, 2);
      await eventually(async () => (await stored(e)).n === 10, 30_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await stored(e)).toEqual({ n: 10, d: 10 });
      const f = await db.query('SELECT kind FROM hook_run_findings WHERE endpoint_id = $1', [e.ep.id]);
      expect(f.rows).toEqual([]);
    } finally {
      uploader.kill('SIGTERM');
      await new Promise((r) => uploader.on('exit', r));
    }
  }, 120_000); // ten hook processes and a server restart: slow on a loaded machine (timed out at 60 s under load 10)

  it('a record deleted from the spool by hand is reported as a gap', async () => {
    const e = await endpoint();
    await dispatch(e, 4);
    // Any zerotwo-hooks command goes through with the endpoint's managed requirements preset.
    const list = await run(process.execPath, [
      AGENT,
      'hooks',
      'list',
      '--root',
      e.root,
      '--state-dir',
      e.state,
      '--home',
      path.join(e.dir, 'home'),
      '--project',
      e.dir,
    ]);
    expect(list.stdout).toContain('pre_tool_use');
    // Seal the open segment without uploading: an upload with the server pointed nowhere.
    const creds = JSON.parse(readFileSync(path.join(e.state, 'credentials.json'), 'utf8')) as { serverUrl: string };
    writeFileSync(
      path.join(e.state, 'credentials.json'),
      JSON.stringify({ ...creds, serverUrl: 'http://127.0.0.1:1' }),
    );
    await run(process.execPath, [AGENT, 'upload-runs', '--once', '--state-dir', e.state]).catch(() => undefined);
    writeFileSync(path.join(e.state, 'credentials.json'), JSON.stringify(creds));
    const [seg] = segments(e);
    const file = path.join(e.spool, seg!);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    writeFileSync(file, [lines[0], lines[2], lines[3]].join('\n') + '\n'); // seq 2 removed by hand
    await uploadOnce(e);
    const items = await eventually(async () => {
      const r = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${e.ep.id}`, { token: auditor });
      return r.body.items.length ? (r.body.items as Array<{ kind: string; fromSeq: number; toSeq: number }>) : null;
    });
    expect(items).toEqual([expect.objectContaining({ kind: 'missing_range', fromSeq: 2, toSeq: 2 })]);
  });
});
