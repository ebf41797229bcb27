// Real agent processes against bundles the API now refuses at authoring: the agent refuses them with the same rules,
// writes nothing, reports a failure the API accepts, and a later good bundle always applies.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { statusSchema } from '../../apps/api/src/agent/agent.dto';
import { BundleRejected, verifyBundle } from '@hookwarden/hook-core';
import { Layer } from '../../apps/agent-sync/src/materialize/layer';
import { runAgent, snapshot, visibleLayer } from '../support/agent';
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
let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;

const toml = (dir: string, marker = 'x'): string => `# ${marker}\n[hooks]\nmanaged_dir = ${JSON.stringify(dir)}\n`;
const GOOD: FakeFile[] = [{ path: 'check.sh', content: '#!/bin/sh\necho ok\n' }];
const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);

// The snapshot of the temp dir without the agent's own state file (its last error may change).
async function disk(): Promise<Record<string, string>> {
  const s = await snapshot(tmp);
  delete s['state/agent-state.json'];
  return s;
}

// Every status report the fake server received must be one the real API accepts.
function expectAcceptedReports(): void {
  for (const s of server.statuses) {
    const parsed = statusSchema.safeParse(s);
    expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 2))).toBe(true);
  }
}

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-content-'));
  server.statuses.length = 0;
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('agent content rules', () => {
  it.each([
    ['/', /must not be \//],
    ['/etc/zerotwo', /system config directory/],
    ['/etc/zerotwo/.hookwarden-layer/current/managed', /hookwarden-layer/],
    ['~/.zerotwo/hooks', /system-wide/],
  ])('managed_dir = %j is refused before anything is written; the next good bundle applies', async (dir, why) => {
    server.bundle = signManifest(key, manifestObject(1, toml(MANAGED, 'A'), GOOD));
    expect((await once()).code).toBe(0);
    const before = await disk();
    server.bundle = signManifest(key, manifestObject(2, toml(dir), GOOD));
    const r = await once();
    expect(r.code).toBe(3);
    expect(await disk()).toEqual(before);
    const failed = server.statuses.at(-1);
    expect(failed).toMatchObject({ state: 'failed', appliedRevision: 1, targetRevision: 2 });
    expect(failed.errors[0]).toMatch(why);
    server.bundle = signManifest(key, manifestObject(3, toml(MANAGED, 'C'), GOOD));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual({
      'requirements.toml': toml(MANAGED, 'C'),
      'check.sh': '755:#!/bin/sh\necho ok\n',
    });
    expectAcceptedReports();
  });

  it.each([
    ['A.sh + a.sh', ['A.sh', 'a.sh']],
    ['x + x/y.sh', ['x', 'x/y.sh']],
    ['lib/./util.sh', ['lib/./util.sh']],
    ['./x', ['./x']],
    ['newline', ['a\nb']],
    ['tab', ['a\tb']],
    ['0x01', ['a\u0001b']],
    ['300-character segment', ['s'.repeat(300)]],
  ])('files %s are refused before anything is written', async (_name, names) => {
    const before = await disk();
    const files = names.map((p) => ({ path: p, content: 'x\n' }));
    server.bundle = signManifest(key, manifestObject(1, toml(MANAGED), files));
    expect((await once()).code).toBe(3);
    expect(await disk()).toEqual(before);
    expect(server.statuses.at(-1)).toMatchObject({ state: 'failed', targetRevision: 1 });
    expectAcceptedReports();
  });

  it('a failure with a huge error text is reported cut to what the API accepts', async () => {
    const files = Array.from({ length: 60 }, (_, i) => ({ path: `${i}`.padEnd(1024, 'n'), content: 'x' }));
    server.bundle = signManifest(key, manifestObject(1, toml(MANAGED), files));
    expect((await once()).code).toBe(3);
    const report = server.statuses.at(-1);
    expect(report.state).toBe('failed');
    expect(report.errors[0].length).toBeLessThanOrEqual(2000);
    expect(report.errors[0]).toMatch(/bytes long/);
    expectAcceptedReports();
  });

  it('a layer whose `current` link was turned into a directory does not block the next good bundle', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml(MANAGED, 'A'), GOOD));
    expect((await once()).code).toBe(0);
    // What the old agent left behind: `current` replaced by a real directory.
    const current = path.join(root, 'etc/zerotwo/.hookwarden-layer/current');
    await fs.rm(current);
    await fs.mkdir(path.join(current, 'managed'), { recursive: true });
    await fs.writeFile(path.join(current, 'managed', 'junk'), 'junk');
    server.bundle = signManifest(key, manifestObject(2, toml(MANAGED, 'B'), GOOD));
    const r = await once();
    expect(r.code, r.stderr).toBe(0);
    expect((await fs.lstat(current)).isSymbolicLink()).toBe(true);
    expect(await visibleLayer(root, MANAGED)).toEqual({
      'requirements.toml': toml(MANAGED, 'B'),
      'check.sh': '755:#!/bin/sh\necho ok\n',
    });
    expect(server.statuses.at(-1)).toMatchObject({ state: 'applied', appliedRevision: 2 });
  });

  it('a requirements.toml that became a directory is put aside and replaced by the link', async () => {
    await fs.mkdir(path.join(root, 'etc/zerotwo/requirements.toml'), { recursive: true });
    server.bundle = signManifest(key, manifestObject(1, toml(MANAGED, 'A'), GOOD));
    const r = await once();
    expect(r.code, r.stderr).toBe(0);
    expect(await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8')).toBe(toml(MANAGED, 'A'));
  });

  it('an owned file may become a directory in the next version, and back (in-process)', async () => {
    const layer = new Layer({ root });
    const trusted = [{ kid: key.kid, publicKeyPem: key.publicKeyPem }];
    const apply = async (rev: number, files: FakeFile[]): Promise<void> => {
      const v = verifyBundle(signManifest(key, manifestObject(rev, toml(MANAGED), files)), trusted, rev - 1, null);
      await layer.apply(v);
    };
    await apply(1, [{ path: 'x', content: 'file\n' }]);
    await apply(2, [{ path: 'x/y.sh', content: 'nested\n' }]);
    expect(await fs.readFile(path.join(root, MANAGED, 'x/y.sh'), 'utf8')).toBe('nested\n');
    await apply(3, [{ path: 'x', content: 'file again\n' }]);
    expect(await fs.readFile(path.join(root, MANAGED, 'x'), 'utf8')).toBe('file again\n');
    // A directory holding a file the agent does not own is never replaced by a file.
    await apply(4, [{ path: 'd/own.sh', content: 'own\n' }]);
    await fs.writeFile(path.join(root, MANAGED, 'd', 'theirs.txt'), 'local\n');
    await expect(apply(5, [{ path: 'd', content: 'file\n' }])).rejects.toThrow(/not owned by the agent/);
    expect(await fs.readFile(path.join(root, MANAGED, 'd', 'theirs.txt'), 'utf8')).toBe('local\n');
  });

  it('the layer refuses a managed_dir that overlaps its real state directory (in-process)', async () => {
    const agentState = path.join(root, 'srv/agent');
    const layer = new Layer({ root, stateDir: agentState });
    const bundle = signManifest(key, manifestObject(1, toml('/srv/agent/hooks'), GOOD));
    const v = verifyBundle(bundle, [{ kid: key.kid, publicKeyPem: key.publicKeyPem }], null, null);
    await expect(layer.apply(v)).rejects.toThrow(BundleRejected);
    await expect(layer.apply(v)).rejects.toThrow(/state directory/);
    await expect(fs.readdir(root)).resolves.toEqual([]);
  });
});
