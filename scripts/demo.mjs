// `npm run demo`: the whole flow on this machine, one step at a time. Starts the API and the worker on a demo database
// of their own (or uses a running server with --server URL --token ADMIN_TOKEN), creates a demo group and a policy
// whose managed PreToolUse hook denies `rm -rf`, enrolls a local agent in a temp root, releases, shows the files
// landing, dispatches a denied and an allowed Bash event through the endpoint's engine, uploads the run records and
// shows what an auditor sees. Then it keeps the server up for exploring; Ctrl-C (or --exit after the last step)
// removes everything it made: processes, the demo database, its Redis keys and the temp root.
//
//   npm run demo [-- --exit] [--port N] [--server URL --token hwt_…] [--agent PATH] [--no-build]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureInstalled } from './ensure-installed.mjs';

ensureInstalled();
const { default: pg } = await import('pg');
const { bin, ensureDatabase, migrateDeploy, root, run } = await import('./lib.mjs');

const { values: opts } = parseArgs({
  options: {
    exit: { type: 'boolean', default: false },
    port: { type: 'string' },
    server: { type: 'string' },
    token: { type: 'string' },
    agent: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    'redis-url': { type: 'string', default: process.env.REDIS_URL || 'redis://127.0.0.1:6379' },
  },
});
if (Boolean(opts.server) !== Boolean(opts.token))
  fail('--server and --token go together (a running API and an admin token)');

const id = randomBytes(3).toString('hex');
const MANAGED_DIR = '/opt/hookwarden-demo/hooks';
const cleanups = [];
const children = [];
let step = 0;

// Prints a numbered step with what it does.
function say(title, detail = '') {
  step++;
  console.log(`\n\x1b[1m${step}. ${title}\x1b[0m${detail ? `\n   ${detail}` : ''}`);
}
const info = (line) => console.log(`   ${line}`);

function fail(message) {
  console.error(`demo: ${message}`);
  process.exit(1);
}

// A free TCP port on 127.0.0.1.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Whether a port on 127.0.0.1 accepts connections.
function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

// One JSON request to the API; throws with the answer on an unexpected status.
async function api(method, p, { token, body, expect = [200, 201] } = {}) {
  const res = await fetch(baseUrl + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const json = text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  if (!expect.includes(res.status)) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 500)}`);
  return json;
}

// Runs the agent CLI to completion (stdin optional); returns its output.
async function agent(args, input) {
  const [cmd, ...pre] = agentCommand;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...pre, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve({ out, err }) : reject(new Error(`hookwarden-agent ${args[0]} exited ${code}: ${err}`)),
    );
    child.stdin.end(input ?? '');
  });
}

// Waits for a condition, polling; throws after the deadline.
async function until(what, check, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Undoes everything this run made, newest first; runs once.
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) await undo().catch((e) => console.error(`   cleanup: ${e.message}`));
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    console.log('\nstopping: removing everything the demo made…');
    void cleanup().then(() => process.exit(130));
  });

// ---------------------------------------------------------------------------------------------------------------
let baseUrl = opts.server?.replace(/\/+$/, '');
let adminToken = opts.token;
const agentCommand = opts.agent
  ? [opts.agent]
  : [process.execPath, path.join(root, 'apps/agent-sync/dist/cli/main.js')];

try {
  if (!opts['no-build']) {
    say('Build', 'tsc -b: hook-core, the API and the agent');
    await run(bin('tsc'), ['-b', 'tsconfig.build.json']);
  }

  if (baseUrl) {
    say('Use the running API', baseUrl);
    await api('GET', '/v1/groups?limit=1', { token: adminToken });
  } else {
    const port = Number(opts.port ?? ((await portOpen(3000)) ? await freePort() : 3000));
    baseUrl = `http://127.0.0.1:${port}`;
    adminToken = `hwt_demo_${randomBytes(24).toString('base64url')}`;
    const databaseUrl = opts['database-url'] ?? `postgresql://postgres@127.0.0.1:5432/hookwarden_demo_${id}`;
    const redisPrefix = `hookwarden-demo-${id}`;
    say(
      'Start the API and the worker',
      `database ${new URL(databaseUrl).pathname.slice(1)}, Redis prefix ${redisPrefix}`,
    );
    await ensureDatabase(databaseUrl);
    cleanups.push(async () => {
      const adminUrl = new URL(databaseUrl);
      const name = decodeURIComponent(adminUrl.pathname.slice(1));
      adminUrl.pathname = '/postgres';
      const c = new pg.Client({ connectionString: adminUrl.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`).finally(() => c.end());
      info(`dropped database ${name}`);
    });
    await migrateDeploy({ ...process.env, DATABASE_URL: databaseUrl });
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: opts['redis-url'],
      REDIS_PREFIX: redisPrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'error',
      HOOKWARDEN_BOOTSTRAP_TOKEN: adminToken,
    };
    cleanups.push(async () => {
      const { Redis } = await import('ioredis');
      const redis = new Redis(opts['redis-url'], { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      let cursor = '0';
      let n = 0;
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) n += await redis.unlink(...keys);
      } while (cursor !== '0');
      redis.disconnect();
      info(`deleted ${n} Redis keys ${redisPrefix}:*`);
    });
    for (const entry of ['main.js', 'worker.js']) {
      const child = spawn(process.execPath, [path.join(root, 'apps/api/dist', entry)], { env, stdio: 'inherit' });
      children.push(child);
      child.on('exit', (code, signal) => {
        if (!cleaning) {
          console.error(`demo: ${entry} exited (${signal ?? code}) before the demo finished`);
          void cleanup().then(() => process.exit(1));
        }
      });
    }
    cleanups.push(async () => {
      await Promise.all(
        children.map(
          (c) =>
            new Promise((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', resolve);
              c.kill('SIGTERM');
              setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
            }),
        ),
      );
      info('stopped the API and the worker');
    });
    await until('the API to answer /readyz', async () => (await fetch(`${baseUrl}/readyz`)).ok);
    info(`API ready at ${baseUrl}`);
  }

  // A temp root stands in for the endpoint's `/`: the agent writes <root>/etc/zerotwo and <root>/opt there.
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hookwarden-demo-'));
  cleanups.push(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
    info(`removed ${tmp}`);
  });
  const endpointRoot = path.join(tmp, 'root');
  const stateDir = path.join(tmp, 'state');
  const home = path.join(tmp, 'home');
  const project = path.join(tmp, 'project');
  for (const d of [path.join(endpointRoot, 'etc'), home, project]) await fs.mkdir(d, { recursive: true });
  await fs.writeFile(path.join(endpointRoot, 'etc', 'machine-id'), `hookwarden-demo-${id}-machine\n`);

  say('Create a demo group', 'POST /v1/groups');
  const group = await api('POST', '/v1/groups', { token: adminToken, body: { name: `demo-${id}` } });
  info(`group ${group.name} (${group.id})`);

  say(
    'Author a policy whose managed PreToolUse hook denies `rm -rf`',
    'POST /v1/policies, POST /v1/policies/:id/versions',
  );
  const policy = await api('POST', '/v1/policies', {
    token: adminToken,
    body: { name: `demo-policy-${id}`, groupId: group.id },
  });
  // On a real endpoint the command is /opt/hookwarden-demo/hooks/deny-rm-rf.sh; here `/` is the temp root.
  const script = path.join(endpointRoot, MANAGED_DIR, 'deny-rm-rf.sh');
  const toml = [
    'allow_managed_hooks_only = true',
    '',
    '[features]',
    'hooks = true',
    '',
    '[hooks]',
    `managed_dir = "${MANAGED_DIR}"`,
    '',
    '[[hooks.PreToolUse]]',
    'matcher = "^Bash$"',
    '',
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = "${script}"`,
    'timeout = 10',
    'statusMessage = "Checking the command against company policy"',
    '',
  ].join('\n');
  const hook = [
    '#!/bin/sh',
    '# Denies Bash commands that run `rm -rf` (the event arrives as JSON on stdin).',
    'if grep -Eq \'"command" *: *"[^"]*rm +-(rf|fr)\'; then',
    '  printf \'%s\\n\' \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is blocked by company policy"}}\'',
    'fi',
    'exit 0',
    '',
  ].join('\n');
  const version = await api('POST', `/v1/policies/${policy.id}/versions`, {
    token: adminToken,
    body: {
      toml,
      files: [{ path: 'deny-rm-rf.sh', content: hook, mode: 0o755 }],
      message: 'deny rm -rf',
      baseVersion: 0,
    },
  });
  info(`policy ${policy.name}: version ${version.number}, digest ${version.digest}`);
  for (const w of version.warnings ?? version.lintWarnings ?? [])
    info(`lint warning: ${w.message ?? JSON.stringify(w)}`);

  say('Enroll a local agent', 'POST /v1/groups/:id/enrollment-secrets, then `hookwarden-agent enroll`');
  const secret = await api('POST', `/v1/groups/${group.id}/enrollment-secrets`, {
    token: adminToken,
    body: { name: 'demo', maxUses: 1 },
  });
  await agent([
    'enroll',
    '--server',
    baseUrl,
    '--secret',
    secret.secret,
    '--state-dir',
    stateDir,
    '--root',
    endpointRoot,
  ]);
  const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8'));
  info(`endpoint ${creds.endpointId}; credentials in ${path.join(stateDir, 'credentials.json')} (mode 0600)`);
  cleanups.push(async () => {
    if (!opts.server) return; // the demo database goes away with everything in it
    await api('POST', `/v1/endpoints/${creds.endpointId}/revoke`, { token: adminToken, body: {} });
    info(`revoked endpoint ${creds.endpointId} (the group and policy stay: policy history is immutable)`);
  });

  say(
    'Release the version to the group',
    'GET /v1/groups/:id/release-preview, then POST /v1/groups/:id/releases (immediate)',
  );
  // The impact preview first: this version allows managed hooks only, and the new endpoint has not reported an
  // inventory yet, so its impact is unknown and the release must acknowledge exactly this preview (else 428).
  const preview = await api(
    'GET',
    `/v1/groups/${group.id}/release-preview?policyVersionId=${encodeURIComponent(version.id)}`,
    { token: adminToken },
  );
  if (preview.impactUnknown) info('impact unknown: an endpoint has not reported its hook inventory yet');
  if (preview.requiresAck) info(`acknowledging preview ${preview.digest}`);
  const release = await api('POST', `/v1/groups/${group.id}/releases`, {
    token: adminToken,
    body: {
      policyVersionId: version.id,
      strategy: 'immediate',
      ...(preview.requiresAck ? { previewAck: preview.digest } : {}),
    },
  });
  info(`release ${release.id}: revision ${release.revision}, ${release.status}`);

  say(
    'The agent applies it: the files land',
    '`hookwarden-agent run --once` fetches the signed bundle and swaps the layer',
  );
  await agent(['run', '--once', '--state-dir', stateDir, '--root', endpointRoot]);
  for (const f of [path.join(endpointRoot, 'etc/zerotwo/requirements.toml'), script]) {
    const st = await fs.stat(f);
    info(`${path.relative(tmp, f).padEnd(48)} ${(st.mode & 0o777).toString(8)}  ${st.size} bytes`);
  }

  // One Bash event through the endpoint's engine, as ZeroCode would send it.
  const dispatchBash = async (command) => {
    const event = {
      session_id: `demo-${id}`,
      turn_id: 't1',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_use_id: `call-${randomBytes(3).toString('hex')}`,
      tool_input: { command },
      permission_mode: 'default',
    };
    const args = ['hooks', 'dispatch', 'PreToolUse', '--root', endpointRoot, '--state-dir', stateDir];
    const { out } = await agent([...args, '--home', home, '--project', project], JSON.stringify(event));
    return JSON.parse(out);
  };
  say('Dispatch a Bash `rm -rf` event', '`hookwarden-agent hooks dispatch PreToolUse` with the event on stdin');
  const denied = await dispatchBash('rm -rf ./build');
  info(
    `decision: ${denied.outcome.decision ?? 'none'}${denied.outcome.reasons?.length ? ` — ${denied.outcome.reasons.join('; ')}` : ''}`,
  );
  if (denied.outcome.decision !== 'deny') throw new Error(`expected a deny, got ${JSON.stringify(denied.outcome)}`);

  say('Dispatch an allowed Bash event', 'the same hook runs and lets `ls -la` through');
  const allowed = await dispatchBash('ls -la');
  info(`decision: ${allowed.outcome.decision ?? 'none (allowed)'}; hooks run: ${allowed.runs.length}`);
  if (allowed.outcome.decision === 'deny') throw new Error('the allowed command was denied');

  say(
    'Upload the hook-run records',
    '`hookwarden-agent upload-runs --once` ships the spool (gzip NDJSON, hash-chained)',
  );
  await agent(['upload-runs', '--once', '--state-dir', stateDir]);

  say('What an auditor sees', 'an auditor token, GET /v1/hook-runs?endpointId=…');
  const auditor = await api('POST', '/v1/tokens', {
    token: adminToken,
    body: { name: `demo-auditor-${id}`, role: 'auditor' },
  });
  cleanups.push(async () => {
    if (!opts.server) return;
    await api('DELETE', `/v1/tokens/${auditor.id}`, { token: adminToken, expect: [200, 204] });
    info('revoked the demo auditor token');
  });
  const runs = await until('the uploaded records to be stored', async () => {
    const page = await api('GET', `/v1/hook-runs?endpointId=${creds.endpointId}`, { token: auditor.token });
    return page.items.length >= 2 ? page.items : null;
  });
  for (const r of runs)
    info(
      `${r.startedAt}  ${r.event} ${r.toolName}  decision=${r.decision ?? '-'}  status=${r.status}  revision=${r.policyRevision}  ${r.hookKey}`,
    );
  const endpoint = await api('GET', `/v1/endpoints/${creds.endpointId}`, { token: auditor.token });
  info(
    `endpoint ${endpoint.hostname ?? creds.endpointId}: state ${endpoint.state}, applied revision ${endpoint.appliedRevision}`,
  );

  console.log(`\n\x1b[1mKeep exploring\x1b[0m
   API          ${baseUrl}   (docs: ${baseUrl}/docs)
   admin token  ${adminToken}
   auditor      ${auditor.token}
   group        ${group.id}     policy ${policy.id}     endpoint ${creds.endpointId}
   endpoint     root ${endpointRoot}, state ${stateDir}
   try          curl -H "Authorization: Bearer ${auditor.token}" ${baseUrl}/v1/hook-runs?endpointId=${creds.endpointId}
                curl -H "Authorization: Bearer ${auditor.token}" ${baseUrl}/metrics
                echo '{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' | ${agentCommand.join(' ')} hooks dispatch PreToolUse --root ${endpointRoot} --state-dir ${stateDir} --home ${home}`);
  if (opts.exit) {
    console.log('\n--exit: cleaning up');
    await cleanup();
    console.log('demo finished');
    process.exit(0);
  }
  console.log('\nCtrl-C stops the demo and removes everything it made.');
  await new Promise(() => undefined);
} catch (err) {
  console.error(`\ndemo failed: ${err.message}`);
  await cleanup();
  process.exit(1);
}
