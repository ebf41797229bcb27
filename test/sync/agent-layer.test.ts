// Real agent processes against a fake bundle server: tampered bundles change nothing, SIGKILL mid-apply never
// leaves a mix, offline start from the last good bundle, foreign files untouched.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeCredentials } from '../../apps/agent-sync/src/state/credentials';
import { runAgent, snapshot, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import {
  FakeBundleServer,
  type FakeFile,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const MANAGED = '/opt/hw-hooks';
const key = new SigningKeyPair('ed25519:trusted');
const rogue = new SigningKeyPair('ed25519:trusted'); // same key id, different key: a forged signature
let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;

const toml = (marker: string): string => `# ${marker}\n[hooks]\nmanaged_dir = "${MANAGED}"\n`;
const A: FakeFile[] = [
  { path: 'check.sh', content: '#!/bin/sh\necho A\n' },
  { path: 'lib/common.sh', content: 'A_COMMON=1\n', mode: 0o644 },
];
const B: FakeFile[] = [
  { path: 'check.sh', content: '#!/bin/sh\necho B\n' },
  { path: 'other.sh', content: '#!/bin/sh\necho other\n' },
];

// The exact visible layer a bundle must produce.
function expected(marker: string, files: FakeFile[]): Record<string, string> {
  const out: Record<string, string> = { 'requirements.toml': toml(marker) };
  for (const f of files) out[f.path] = `${(f.mode ?? 0o755).toString(8)}:${f.content}`;
  return out;
}

const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-agent-'));
  server.statuses.length = 0;
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('agent layer safety', () => {
  it('applies a bundle atomically with modes, keeps foreign files, and removes files it dropped', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual(expected('A', A));
    const st = await fs.lstat(path.join(root, 'etc/zerotwo/requirements.toml'));
    expect(st.isSymbolicLink()).toBe(true);
    await fs.writeFile(path.join(root, MANAGED, 'mine.txt'), 'a file the admin of this machine put here\n');
    server.bundle = signManifest(key, manifestObject(2, toml('B'), B));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual({
      ...expected('B', B),
      'mine.txt': '644:a file the admin of this machine put here\n',
    });
    expect(server.statuses.at(-1)).toMatchObject({ state: 'applied', appliedRevision: 2, targetRevision: 2 });
    const status = await runAgent(['status', '--state-dir', stateDir, '--root', root, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ revision: 2, policyVersion: 2, drift: [] });
  });

  it('adopts a pre-existing managed_dir without touching files it does not own, and refuses to overwrite them', async () => {
    await fs.mkdir(path.join(root, MANAGED), { recursive: true });
    await fs.writeFile(path.join(root, MANAGED, 'local.sh'), 'local\n');
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual({ ...expected('A', A), 'local.sh': '644:local\n' });
    const before = await snapshot(root);
    server.bundle = signManifest(key, manifestObject(2, toml('X'), [{ path: 'local.sh', content: 'mine now\n' }]));
    expect((await once()).code).toBe(3);
    expect(await snapshot(root)).toEqual(before);
  });

  const tampers: Array<[string, () => any]> = [
    ['bad signature', () => ({ ...signManifest(key, manifestObject(2, toml('B'), B)), signature: rogue.sign('x') })],
    [
      'changed file after signing',
      () => {
        const good = signManifest(key, manifestObject(2, toml('B'), B));
        const m = JSON.parse(good.manifest);
        m.files[0].content = Buffer.from('#!/bin/sh\nrm -rf /\n').toString('base64');
        return { ...good, manifest: JSON.stringify(m) };
      },
    ],
    [
      'wrong hash (signed)',
      () => {
        const m = manifestObject(2, toml('B'), B);
        m.files[0].sha256 = '0'.repeat(64);
        return signManifest(key, m);
      },
    ],
    [
      'wrong requirements hash (signed)',
      () => {
        const m = manifestObject(2, toml('B'), B);
        m.requirements.content = toml('evil');
        return signManifest(key, m);
      },
    ],
    ['replayed older revision', () => signManifest(key, manifestObject(4, toml('B'), B))],
    ['../ path', () => signManifest(key, manifestObject(6, toml('B'), [{ path: '../escape.sh', content: 'x' }]))],
    [
      'nested ../ path',
      () => signManifest(key, manifestObject(6, toml('B'), [{ path: 'a/../../escape.sh', content: 'x' }])),
    ],
    ['absolute path', () => signManifest(key, manifestObject(6, toml('B'), [{ path: '/etc/passwd', content: 'x' }]))],
    [
      'backslash path',
      () => signManifest(key, manifestObject(6, toml('B'), [{ path: '..\\escape.sh', content: 'x' }])),
    ],
    ['untrusted key id', () => ({ ...signManifest(rogue, manifestObject(6, toml('B'), B)), keyId: 'ed25519:other' })],
  ];

  it.each(tampers)('a tampered bundle (%s) changes nothing on disk and is reported failed', async (_name, make) => {
    server.bundle = signManifest(key, manifestObject(5, toml('A'), A));
    expect((await once()).code).toBe(0);
    const before = await snapshot(tmp);
    server.bundle = make();
    const r = await once();
    expect(r.code).toBe(3);
    const after = await snapshot(tmp);
    // Only the agent's own state file (last error) may differ.
    delete before['state/agent-state.json'];
    delete after['state/agent-state.json'];
    expect(after).toEqual(before);
    expect(await visibleLayer(root, MANAGED)).toEqual(expected('A', A));
    expect(server.statuses.at(-1)).toMatchObject({ state: 'failed', appliedRevision: 5 });
    expect(server.statuses.at(-1).errors[0]).toBeTruthy();
  });

  it('refuses a path that would leave managed_dir through a symlink already on disk', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    const outside = path.join(tmp, 'outside');
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(root, MANAGED, 'evil'));
    const before = await snapshot(tmp);
    server.bundle = signManifest(key, manifestObject(2, toml('B'), [...B, { path: 'evil/x.sh', content: 'pwned\n' }]));
    const r = await once();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('symlink');
    expect(await fs.readdir(outside)).toEqual([]);
    const after = await snapshot(tmp);
    delete before['state/agent-state.json'];
    delete after['state/agent-state.json'];
    expect(after).toEqual(before);
  });

  it('leaves a complete old or new layer when killed with SIGKILL at random points during 50 applies', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('r1'), A));
    expect((await once()).code).toBe(0);
    const layers = new Map<string, Record<string, string>>([['r1', expected('r1', A)]]);
    let killedMidway = 0;
    for (let rev = 2; rev <= 51; rev++) {
      const files = rev % 2 ? A : B;
      layers.set(`r${rev}`, expected(`r${rev}`, files));
      server.bundle = signManifest(key, manifestObject(rev, toml(`r${rev}`), files));
      const p = spawnAgent(['run', '--once', '--state-dir', stateDir, '--root', root], {
        HOOKWARDEN_AGENT_TEST_STEP_DELAY_MS: '4',
      });
      // Wait until the agent starts staging (or a short random time), then kill at a random point.
      await waitFor(
        async () =>
          (await fs.readdir(path.join(root, 'etc/zerotwo/.hookwarden-layer'))).some((e) => e.startsWith('.staging-')) ||
          p.child.exitCode !== null,
        5000,
        'staging',
      );
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      if (p.child.exitCode === null) {
        p.child.kill('SIGKILL');
        killedMidway++;
      }
      await p.exited;
      const visible = await visibleLayer(root, MANAGED);
      const match = [...layers.entries()].filter(([, l]) => JSON.stringify(l) === JSON.stringify(visible));
      expect(match.length, `after kill at revision ${rev}: ${JSON.stringify(visible)}`).toBe(1);
    }
    expect(killedMidway).toBeGreaterThan(25);
    // A clean run afterwards recovers leftovers and converges on the newest bundle.
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual(layers.get('r51'));
    const leftovers = (await fs.readdir(path.join(root, 'etc/zerotwo/.hookwarden-layer'))).filter(
      (e) => e !== 'current',
    );
    expect(leftovers).toHaveLength(1);
  }, 120_000);

  it('starts offline from the last good bundle when the server is down', async () => {
    server.bundle = signManifest(key, manifestObject(3, toml('A'), A));
    expect((await once()).code).toBe(0);
    await fs.rm(path.join(root, 'etc'), { recursive: true });
    await fs.rm(path.join(root, 'opt'), { recursive: true });
    const down = new FakeBundleServer();
    await down.start();
    const deadUrl = down.url;
    await down.stop();
    const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8'));
    await writeCredentials(stateDir, { ...creds, serverUrl: deadUrl });
    const p = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '5', '--max-backoff', '500']);
    try {
      await waitFor(
        async () => JSON.stringify(await visibleLayer(root, MANAGED)) === JSON.stringify(expected('A', A)),
        10_000,
        'offline restore',
      );
      await waitFor(() => p.stderr().includes('backing off'), 10_000, 'backoff log');
    } finally {
      await stopAgent(p);
    }
    expect(p.stderr()).toContain('restored the managed layer from the last good bundle');
  });
});
