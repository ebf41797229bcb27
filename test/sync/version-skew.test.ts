// Issue 20 §5 (version skew, agent side): a real agent process refuses a validly signed bundle whose requirements.toml
// its own engine would not run as written — reported failed with the reason, the old layer intact — and reports its
// agent and contract versions; content its engine reads safely (a clamped timeout) still applies.
import { promises as fs } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONTRACT_VERSION } from '@hookwarden/hook-core';
import { statusSchema } from '../../apps/api/src/agent/agent.dto';
import { AGENT_VERSION } from '../../apps/agent-sync/src/version';
import { runAgent, snapshot, visibleLayer } from '../support/agent';
import {
  FakeBundleServer,
  type FakeFile,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const MANAGED = '/opt/hw-skew';
const key = new SigningKeyPair('ed25519:trusted');
let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;

const FILES: FakeFile[] = [{ path: 'deny.sh', content: '#!/bin/sh\necho deny\n' }];
// A managed PreToolUse deny with the given extra handler lines (the API refuses the bad ones at authoring, so the
// bundles here are signed directly).
const toml = (...extra: string[]): string =>
  [
    '[hooks]',
    `managed_dir = "${MANAGED}"`,
    '[[hooks.PreToolUse]]',
    'matcher = "^Bash$"',
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = "${MANAGED}/deny.sh"`,
    ...extra,
    '',
  ].join('\n');
const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);

// The temp dir without the agent's own state file (its last error changes).
async function disk(): Promise<Record<string, string>> {
  const s = await snapshot(tmp);
  delete s['state/agent-state.json'];
  return s;
}

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, key, 'hw-skew-'));
  server.statuses.length = 0;
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('the agent checks requirements.toml with its own engine before the switch', () => {
  it.each([
    ['a handler field of the wrong type', ['timeout = "30"'], /PreToolUse\[0\]\.hooks\[0\]: .*expected number/],
    ['an unknown handler key', ['timeot = 30'], /timeot/],
    [
      'an unparseable matcher',
      [
        '[[hooks.PreToolUse]]',
        'matcher = "(unclosed"',
        '[[hooks.PreToolUse.hooks]]',
        'type = "command"',
        'command = "x"',
      ],
      /invalid matcher/,
    ],
    ['an event this engine does not know', ['[[hooks.PreFlight]]', 'hooks = []'], /unknown hook event `PreFlight`/],
  ])('%s: refused, reported failed with the reason, the old layer kept', async (_what, extra, why) => {
    server.bundle = signManifest(key, manifestObject(1, toml(), FILES));
    expect((await once()).code).toBe(0);
    const before = await disk();
    expect(await visibleLayer(root, MANAGED)).toMatchObject({ 'requirements.toml': toml() });

    server.bundle = signManifest(key, manifestObject(2, toml(...extra), FILES));
    const r = await once();
    expect(r.code).toBe(3);
    expect(await disk()).toEqual(before);
    const failed = server.statuses.at(-1);
    expect(failed).toMatchObject({
      state: 'failed',
      appliedRevision: 1,
      targetRevision: 2,
      agentVersion: AGENT_VERSION,
      contractVersion: CONTRACT_VERSION,
    });
    expect(failed.errors[0]).toMatch(
      /^this agent's engine \(hook-core [^,]+, contract \d+\) would not run the bundle: /,
    );
    expect(failed.errors[0]).toMatch(why);
    for (const s of server.statuses) expect(statusSchema.safeParse(s).success).toBe(true);
  });

  it('a timeout its engine clamps is not refused: the layer applies and reports its versions', async () => {
    server.bundle = signManifest(key, manifestObject(1, toml('timeout = 2147484'), FILES));
    expect((await once()).code).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toMatchObject({ 'requirements.toml': toml('timeout = 2147484') });
    expect(server.statuses.at(-1)).toMatchObject({
      state: 'applied',
      appliedRevision: 1,
      agentVersion: AGENT_VERSION,
      contractVersion: CONTRACT_VERSION,
    });
  });
});
