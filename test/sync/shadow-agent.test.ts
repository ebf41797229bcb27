// Issue 27 §4 through the real sync path: a `hookwarden-agent run` daemon against a server that serves (possibly
// hostile, validly signed) shadow bundles. A shadow bundle aimed at the enforced layer — its managed_dir, the enforced
// requirements.toml's place, a managed bundle served as shadow or a shadow bundle served as the managed one — is
// refused before anything is written and reported; a good one is applied into shadow/ and named in the status report;
// a 204 removes it; an agent restarted with a tampered shadow layer restores it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AgentProcess, runAgent, snapshot, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import {
  fakeEnrolledAgent,
  FakeBundleServer,
  manifestObject,
  shadowManifestObject,
  SigningKeyPair,
  signManifest,
} from '../support/fake-bundle-server';

const ENFORCED = '/opt/hw-enforced';
const SHADOW_MANAGED = '/etc/zerotwo/shadow/managed';
const key = new SigningKeyPair('ed25519:trusted');
const OK = [{ path: 'guard.sh', content: '#!/bin/sh\ncat >/dev/null\nexit 0\n' }];
const DENY = [
  {
    path: 'guard.sh',
    content: `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"stricter"}}'\n`,
  },
];

let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;
let agent: AgentProcess | null = null;

/** requirements.toml with managed_dir `dir` and one Bash PreToolUse hook running guard.sh from it. */
const toml = (dir: string) =>
  `[hooks]\nmanaged_dir = ${JSON.stringify(dir)}\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n` +
  `[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(`${dir}/guard.sh`)}\n`;
/** A shadow bundle of release `releaseId`, validly signed in the shadow context. */
const shadowBundle = (rev: number, dir: string, releaseId: string, files = DENY) =>
  signManifest(key, shadowManifestObject(rev, toml(dir), files, releaseId), 'shadow');
/** The status reports that name a shadow error matching `re`. */
const refusals = (re: RegExp) => server.statuses.filter((s) => re.test(s.shadow?.error ?? ''));

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-shadow-agent-'));
  server.statuses.length = 0;
  server.requests.length = 0;
  server.handler = null;
  server.bundle = signManifest(key, manifestObject(1, toml(ENFORCED), OK));
  server.shadowBundle = null;
  server.announceShadow = false;
  server.shadowPrefers.length = 0;
});
afterEach(async () => {
  if (agent) await stopAgent(agent);
  agent = null;
  await fs.rm(tmp, { recursive: true, force: true });
});

// Starts the daemon and waits for the enforced layer.
async function daemon(): Promise<AgentProcess> {
  agent = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '1', '--max-backoff', '500']);
  await waitFor(
    async () => (await visibleLayer(root, ENFORCED))?.['requirements.toml'] === toml(ENFORCED),
    20_000,
    'the enforced layer',
  );
  return agent;
}

describe('hostile shadow bundles through the sync loop', () => {
  it.each([
    ['the enforced managed_dir', () => shadowBundle(2, ENFORCED, 'rel-h1'), /outside the shadow directory/],
    [
      "a shadow directory of the content rules that is not this machine's",
      () => shadowBundle(2, '/private/etc/zerotwo/shadow/managed', 'rel-h2'),
      /outside the shadow layer/,
    ],
    [
      'a managed bundle served as the shadow layer',
      () => signManifest(key, manifestObject(2, toml(SHADOW_MANAGED), DENY)),
      /signed as a managed bundle, refused as the shadow layer/,
    ],
    [
      'the shadow directory itself',
      () => shadowBundle(2, '/etc/zerotwo/shadow', 'rel-h3'),
      /is the shadow directory itself/,
    ],
  ])('refuses a shadow bundle targeting %s, writes nothing and reports it', async (_what, make, why) => {
    await daemon();
    await waitFor(() => server.statuses.length >= 1, 10_000, 'the applied report');
    const before = await snapshot(root);
    server.shadowBundle = make();
    await waitFor(() => refusals(why).length >= 1, 20_000, 'the shadow refusal in a status report');
    expect(await snapshot(root)).toEqual(before);
    const report = refusals(why)[0]!;
    expect(report).toMatchObject({ state: 'applied', appliedRevision: 1, shadow: { releaseId: null } });
    expect(agent!.stderr()).toMatch(/"msg":"refused shadow bundle"/);
  });

  it('refuses a shadow bundle served in place of the managed one (old and new agents alike)', async () => {
    await daemon();
    const before = await snapshot(root);
    server.bundle = shadowBundle(2, SHADOW_MANAGED, 'rel-swap');
    await waitFor(
      () => server.statuses.some((s) => s.state === 'failed' && /signed as a shadow bundle/.test(s.errors[0])),
      20_000,
      'the managed-layer refusal',
    );
    expect(await snapshot(root)).toEqual(before);
  });
});

describe('a good shadow bundle', () => {
  it('is applied into shadow/ beside the enforced layer, reported, restored after tampering and removed on 204', async () => {
    const p = await daemon();
    const enforced = await visibleLayer(root, ENFORCED);
    server.shadowBundle = shadowBundle(5, SHADOW_MANAGED, 'rel-good');
    const shadowReq = path.join(root, 'etc/zerotwo/shadow/requirements.toml');
    await waitFor(
      () => server.statuses.some((s) => s.shadow?.releaseId === 'rel-good' && s.shadow.revision === 5),
      20_000,
      'the shadow layer in a status report',
    );
    expect(await fs.readFile(shadowReq, 'utf8')).toBe(toml(SHADOW_MANAGED));
    expect(JSON.parse(await fs.readFile(path.join(root, 'etc/zerotwo/shadow/shadow-release.json'), 'utf8'))).toEqual({
      releaseId: 'rel-good',
      version: '5',
      revision: 5,
    });
    expect(await fs.readFile(path.join(root, SHADOW_MANAGED, 'guard.sh'), 'utf8')).toBe(DENY[0]!.content);
    expect(await visibleLayer(root, ENFORCED)).toEqual(enforced);
    const status = await runAgent(['status', '--state-dir', stateDir, '--root', root, '--json']);
    expect(JSON.parse(status.stdout).shadow).toMatchObject({ releaseId: 'rel-good', revision: 5, onDisk: true });

    // Restarted with the shadow script tampered with: restored from the last good shadow bundle.
    await stopAgent(p);
    await fs.rm(path.join(root, SHADOW_MANAGED, 'guard.sh'));
    agent = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '1', '--max-backoff', '500']);
    await waitFor(
      async () =>
        (await fs.readFile(path.join(root, SHADOW_MANAGED, 'guard.sh'), 'utf8').catch(() => '')) === DENY[0]!.content,
      20_000,
      'the shadow layer restored',
    );

    // An older shadow revision is a replay.
    server.shadowBundle = shadowBundle(4, SHADOW_MANAGED, 'rel-old', OK);
    await waitFor(() => refusals(/older than the applied revision 5/).length >= 1, 20_000, 'the replay refusal');
    expect(await fs.readFile(path.join(root, SHADOW_MANAGED, 'guard.sh'), 'utf8')).toBe(DENY[0]!.content);

    // No shadow release any more (204): the layer is removed, the enforced one stays.
    server.shadowBundle = null;
    await waitFor(
      async () => !(await fs.stat(path.join(root, 'etc/zerotwo/shadow')).catch(() => null)),
      20_000,
      'removal',
    );
    await waitFor(
      () => server.statuses.at(-1)?.shadow?.releaseId === null && server.statuses.at(-1)?.shadow?.error === null,
      20_000,
      'the removal in a status report',
    );
    expect(await visibleLayer(root, ENFORCED)).toEqual(enforced);
  });

  it('against a server naming the shadow layer on the managed poll: fetched only when named, never long-polled', async () => {
    server.announceShadow = true;
    await daemon();
    // `none` named, none held: the shadow route is not asked.
    await waitFor(() => server.count('GET /v1/agent/bundle') >= 4, 20_000, 'managed polls');
    expect(server.count('GET /v1/agent/shadow-bundle')).toBe(0);
    // A shadow layer named: fetched (without waiting) and applied, once.
    server.shadowBundle = shadowBundle(3, SHADOW_MANAGED, 'rel-named');
    await waitFor(
      () => server.statuses.some((s) => s.shadow?.releaseId === 'rel-named' && s.shadow.revision === 3),
      20_000,
      'the named shadow layer applied and reported',
    );
    expect(await fs.readFile(path.join(root, SHADOW_MANAGED, 'guard.sh'), 'utf8')).toBe(DENY[0]!.content);
    const polls = server.count('GET /v1/agent/bundle');
    await waitFor(() => server.count('GET /v1/agent/bundle') >= polls + 3, 20_000, 'more managed polls');
    expect(server.count('GET /v1/agent/shadow-bundle')).toBe(1);
    // Named `none` again: fetched once more (204) and removed.
    server.shadowBundle = null;
    await waitFor(
      async () => !(await fs.stat(path.join(root, 'etc/zerotwo/shadow')).catch(() => null)),
      20_000,
      'removal',
    );
    expect(server.count('GET /v1/agent/shadow-bundle')).toBe(2);
    expect(server.shadowPrefers).toEqual([undefined, undefined]);
  });

  it('run --once fetches the shadow layer too; a server without the shadow route changes nothing', async () => {
    const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);
    server.shadowBundle = shadowBundle(3, SHADOW_MANAGED, 'rel-once');
    const first = await once();
    expect(first.code, first.stderr).toBe(0);
    const shadowReq = path.join(root, 'etc/zerotwo/shadow/requirements.toml');
    expect(await fs.readFile(shadowReq, 'utf8')).toBe(toml(SHADOW_MANAGED));
    expect(await visibleLayer(root, ENFORCED)).toMatchObject({ 'requirements.toml': toml(ENFORCED) });
    server.shadowBundle = undefined; // 404: an API older than shadow releases
    const second = await once();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('could not fetch the shadow bundle');
    expect(await fs.readFile(shadowReq, 'utf8')).toBe(toml(SHADOW_MANAGED));
  });
});
