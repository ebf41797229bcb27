// The in-place ("copy") layer switch, used where links cannot be made (Windows without the symlink right, Wine),
// forced here with HOOKWARDEN_AGENT_LAYER_MODE=copy: real agent processes against a fake bundle server, and the
// engine's own gate check deciding what it would run. The engine never accepts a mixed layer, even after SIGKILL.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverHooks, holdManagedLayer, managedLayerProblem } from '@hookwarden/hook-core';
import { runAgent, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import {
  FakeBundleServer,
  type FakeFile,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const MANAGED = '/opt/hw-hooks';
const COPY = { HOOKWARDEN_AGENT_LAYER_MODE: 'copy' };
const key = new SigningKeyPair('ed25519:trusted');
let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;

const toml = (marker: string): string => `# ${marker}\n[hooks]\nmanaged_dir = "${MANAGED}"\n`;
const A: FakeFile[] = [
  { path: 'check.sh', content: '#!/bin/sh\necho A\n' },
  { path: 'lib/common.sh', content: 'A_COMMON=1\n', mode: 0o644 },
  { path: 'lib/more.sh', content: 'A_MORE=1\n', mode: 0o644 },
];
const B: FakeFile[] = [
  { path: 'check.sh', content: '#!/bin/sh\necho B\n' },
  { path: 'other.sh', content: '#!/bin/sh\necho other\n' },
  { path: 'lib/common.sh', content: 'B_COMMON=1\n', mode: 0o644 },
];

// The exact visible layer a bundle must produce.
function expected(marker: string, files: FakeFile[]): Record<string, string> {
  const out: Record<string, string> = { 'requirements.toml': toml(marker) };
  for (const f of files) out[f.path] = `${(f.mode ?? 0o755).toString(8)}:${f.content}`;
  return out;
}

// A layer as text, independent of key order.
const canonical = (l: Record<string, string>): string => JSON.stringify(Object.entries(l).sort());

const req = (): string => path.join(root, 'etc/zerotwo/requirements.toml');
const layerDir = (): string => path.join(root, 'etc/zerotwo/.hookwarden-layer');
const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root], COPY);
const gate = async () => JSON.parse(await fs.readFile(path.join(layerDir(), 'layer-state.json'), 'utf8'));

// What the engine would do now: null when it refuses the managed layer, else the layer it accepted.
async function engineView(): Promise<Record<string, string> | null> {
  const text = await fs.readFile(req(), 'utf8').catch(() => null);
  if (text === null) return null;
  if (managedLayerProblem(req(), text) !== null) return null;
  return visibleLayer(root, MANAGED);
}

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-inplace-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('in-place layer switch (no links)', () => {
  it('applies real files behind a stable gate, keeps foreign files and drops the files it no longer ships', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    expect((await fs.lstat(req())).isSymbolicLink()).toBe(false);
    expect((await fs.lstat(path.join(root, MANAGED))).isDirectory()).toBe(true);
    expect(await engineView()).toEqual(expected('A', A));
    await fs.writeFile(path.join(root, MANAGED, 'mine.txt'), 'local\n');
    server.bundle = signManifest(key, manifestObject(2, toml('B'), B));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toEqual({ ...expected('B', B), 'mine.txt': '644:local\n' });
    expect(await gate()).toMatchObject({ state: 'stable', from: null, managedDir: path.join(root, MANAGED) });
    expect(managedLayerProblem(req(), await fs.readFile(req(), 'utf8'))).toBeNull();
    // A tampered managed file: the engine refuses the layer until the agent repairs it.
    await fs.writeFile(path.join(root, MANAGED, 'check.sh'), '#!/bin/sh\necho tampered\n');
    expect(managedLayerProblem(req(), await fs.readFile(req(), 'utf8'))).toMatch(/check\.sh does not match/);
    const status = await runAgent(['status', '--state-dir', stateDir, '--root', root, '--json'], COPY);
    expect(JSON.parse(status.stdout).drift).toEqual(['check.sh modified']);
    expect((await once()).code).toBe(0);
    expect(await engineView()).toEqual({ ...expected('B', B), 'mine.txt': '644:local\n' });
  });

  it('waits for an engine running managed hooks; meanwhile new engines fail closed and the old files stay', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    const hold = holdManagedLayer(req());
    server.bundle = signManifest(key, manifestObject(2, toml('B'), B));
    const p = spawnAgent(['run', '--once', '--state-dir', stateDir, '--root', root], COPY);
    try {
      await waitFor(async () => (await gate()).state === 'switching', 10_000, 'the switch to start');
      // The held reader keeps the old files in place, and an engine starting now refuses the managed layer.
      expect(await visibleLayer(root, MANAGED)).toEqual(expected('A', A));
      const d = discoverHooks({ requirementsPath: req(), home: path.join(tmp, 'h'), systemDir: path.join(tmp, 's') });
      expect(d.hooksEnabled).toBe(false);
      expect(d.featureReason).toMatch(/switching the managed layer/);
    } finally {
      hold.release();
    }
    expect(await p.exited).toBe(0);
    expect(await engineView()).toEqual(expected('B', B));
  });

  it('postpones a switch while hooks keep running past the wait, and applies the same bundle once they are done', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('A'), A));
    expect((await once()).code).toBe(0);
    const hold = holdManagedLayer(req());
    server.bundle = signManifest(key, manifestObject(2, toml('B'), B));
    const p = spawnAgent(['run', '--state-dir', stateDir, '--root', root, '--poll-wait', '1', '--max-backoff', '300'], {
      ...COPY,
      HOOKWARDEN_AGENT_TEST_READER_WAIT_MS: '200',
    });
    try {
      await waitFor(() => p.stderr().includes('layer switch postponed'), 15_000, 'a postponed switch');
      await waitFor(async () => (await gate()).state === 'stable', 5000, 'the old version back in force');
      expect(await engineView()).toEqual(expected('A', A));
    } finally {
      hold.release();
    }
    // Not pinned as a refused bundle: the next round applies it.
    await waitFor(async () => canonical((await engineView()) ?? {}) === canonical(expected('B', B)), 15_000, 'B');
    await stopAgent(p);
  });

  it('after SIGKILL at random points during 50 applies the engine sees one complete version or refuses', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('r1'), A));
    expect((await once()).code).toBe(0);
    const layers = new Map<string, Record<string, string>>([['r1', expected('r1', A)]]);
    let killedMidway = 0;
    let refused = 0;
    for (let rev = 2; rev <= 51; rev++) {
      const files = rev % 2 ? A : B;
      layers.set(`r${rev}`, expected(`r${rev}`, files));
      server.bundle = signManifest(key, manifestObject(rev, toml(`r${rev}`), files));
      const p = spawnAgent(['run', '--once', '--state-dir', stateDir, '--root', root], {
        ...COPY,
        HOOKWARDEN_AGENT_TEST_STEP_DELAY_MS: '4',
      });
      await waitFor(
        async () => (await fs.readdir(layerDir())).some((e) => e.startsWith('.staging-')) || p.child.exitCode !== null,
        5000,
        'staging',
      );
      await new Promise((r) => setTimeout(r, Math.random() * 60));
      if (p.child.exitCode === null) {
        p.child.kill('SIGKILL');
        killedMidway++;
      }
      await p.exited;
      const view = await engineView();
      if (view === null) refused++;
      else {
        const match = [...layers.entries()].filter(([, l]) => canonical(l) === canonical(view));
        expect(match.length, `after kill at revision ${rev}: ${JSON.stringify(view)}`).toBe(1);
      }
    }
    expect(killedMidway).toBeGreaterThan(25);
    // Where a kill lands is chance: usually some land mid-switch (the engine refuses those layers), but a run whose kills
    // all landed while staging is not a failure of the property above (every view one complete version or refused).
    console.log(`in-place kill series: ${killedMidway} killed mid-apply, ${refused} layers refused by the engine`);
    // The next start rolls an interrupted switch forward and converges on the newest bundle.
    expect((await once()).code).toBe(0);
    expect(await engineView()).toEqual(layers.get('r51'));
    expect((await gate()).state).toBe('stable');
    const versions = (await fs.readdir(layerDir())).filter((e) => /^v\d+-/.test(e));
    expect(versions).toHaveLength(1);
    const temps = (await fs.readdir(path.join(root, MANAGED))).filter((e) => e.endsWith('.tmp'));
    expect(temps).toEqual([]);
  }, 180_000);
});
