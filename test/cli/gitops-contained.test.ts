// GitOps reads only its own directory: a symbolic link to a file outside (requirements.toml, groups.toml, a managed
// file), a `policies` link to another directory, and a link to a path inside DIR that itself resolves outside are all
// refused with a located error by the built CLI against a real API — and no byte of the outside file appears in
// plan's or apply's output.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { runCli } from '../support/cli';

const SECRET = 'hwt_outside0secret0must0never0show';
const TOML =
  '[hooks]\nmanaged_dir = "/opt/h"\n\n[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/opt/h/s.sh"\n';

let api: TestApi;
let auditor: string;
let tmp: string;
let outside: string;

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-cli-contained-'));
  // What a CLI config file looks like: valid TOML, so an old reader would diff it as a requirements.toml.
  outside = path.join(tmp, 'home/.config/hookwarden');
  await fs.mkdir(path.join(outside, 'policies/stolen'), { recursive: true });
  await fs.writeFile(path.join(outside, 'config.toml'), `token = "${SECRET}"\n`);
  await fs.writeFile(path.join(outside, 'groups.toml'), `[groups.default]\ndescription = "${SECRET}"\n`);
  await fs.writeFile(
    path.join(outside, 'policies/stolen/policy.toml'),
    `group = "default"\ndescription = "${SECRET}"\n`,
  );
  await fs.writeFile(path.join(outside, 'policies/stolen/requirements.toml'), `token = "${SECRET}"\n`);
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

// A valid layout named `name` with one policy `base`; `tweak` then plants the link.
async function layout(name: string, tweak: (root: string) => Promise<void>): Promise<string> {
  const root = path.join(tmp, name);
  await fs.mkdir(path.join(root, 'policies/base/files'), { recursive: true });
  await fs.writeFile(path.join(root, 'groups.toml'), '[groups.default]\n');
  await fs.writeFile(path.join(root, 'policies/base/policy.toml'), 'group = "default"\n');
  await fs.writeFile(path.join(root, 'policies/base/requirements.toml'), TOML);
  await fs.writeFile(path.join(root, 'policies/base/files/s.sh'), '#!/bin/sh\n', { mode: 0o755 });
  await tweak(root);
  return root;
}

// plan and apply of `root` as an auditor (plan) and an admin (apply): both refused, naming `file` and `why`,
// and the secret nowhere in their output.
async function expectRefused(root: string, file: string, why: RegExp) {
  const env = { HOOKWARDEN_URL: api.baseUrl };
  const cfg = ['--config', path.join(tmp, 'cli-config.toml')];
  for (const [args, token] of [
    [['plan', '-f', root], auditor],
    [['plan', '-f', root, '-o', 'json'], auditor],
    [['apply', '-f', root], api.adminToken],
  ] as const) {
    const r = await runCli([...cfg, ...args], { ...env, HOOKWARDEN_TOKEN: token });
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain('outside0secret');
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.includes(`${file}: `));
    expect(line, r.stderr).toBeDefined();
    expect(line).toMatch(why);
  }
}

describe('GitOps reads only its own directory', () => {
  it('a control layout without links plans (the refusals below are about the links only)', async () => {
    const root = await layout('control', async () => {});
    const r = await runCli(['--config', path.join(tmp, 'cli-config.toml'), 'plan', '-f', root], {
      HOOKWARDEN_URL: api.baseUrl,
      HOOKWARDEN_TOKEN: auditor,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('base');
  });

  it('policies/<p>/requirements.toml linked to the CLI config file', async () => {
    const root = await layout('file-link', async (r) => {
      await fs.mkdir(path.join(r, 'policies/evil'));
      await fs.writeFile(path.join(r, 'policies/evil/policy.toml'), 'group = "default"\nrollout.strategy = "none"\n');
      await fs.symlink(path.join(outside, 'config.toml'), path.join(r, 'policies/evil/requirements.toml'));
    });
    await expectRefused(root, 'policies/evil/requirements.toml', /symbolic link/);
  });

  it('a `policies` link to another directory', async () => {
    const root = await layout('dir-link', async (r) => {
      await fs.rm(path.join(r, 'policies'), { recursive: true });
      await fs.symlink(path.join(outside, 'policies'), path.join(r, 'policies'));
    });
    await expectRefused(root, 'policies', /symbolic link/);
  });

  it('a linked groups.toml', async () => {
    const root = await layout('groups-link', async (r) => {
      await fs.rm(path.join(r, 'groups.toml'));
      await fs.symlink(path.join(outside, 'groups.toml'), path.join(r, 'groups.toml'));
    });
    await expectRefused(root, 'groups.toml', /symbolic link/);
  });

  it('a link to a path inside DIR that resolves outside (file and files/ folder)', async () => {
    const root = await layout('inner-link', async (r) => {
      // DIR/vendor -> outside: not part of the layout itself, but the links below go through it.
      await fs.symlink(outside, path.join(r, 'vendor'));
      await fs.rm(path.join(r, 'policies/base/requirements.toml'));
      await fs.symlink('../../vendor/config.toml', path.join(r, 'policies/base/requirements.toml'));
    });
    await expectRefused(root, 'policies/base/requirements.toml', /symbolic link/);

    const files = await layout('inner-files-link', async (r) => {
      await fs.symlink(outside, path.join(r, 'vendor'));
      await fs.rm(path.join(r, 'policies/base/files'), { recursive: true });
      await fs.symlink('../../vendor', path.join(r, 'policies/base/files'));
    });
    await expectRefused(files, 'policies/base/files', /symbolic link/);
  });

  it('a managed file linked outside, and a FIFO, are refused too', async () => {
    const root = await layout('managed-link', async (r) => {
      await fs.symlink(path.join(outside, 'config.toml'), path.join(r, 'policies/base/files/config.toml'));
    });
    await expectRefused(root, 'policies/base/files/config.toml', /symbolic link/);

    // A FIFO would block a plain open() forever; it is refused as not a regular file.
    const fifo = await layout('fifo', async (r) => {
      await fs.rm(path.join(r, 'policies/base/policy.toml'));
      execFileSync('mkfifo', [path.join(r, 'policies/base/policy.toml')]);
    });
    await expectRefused(fifo, 'policies/base/policy.toml', /not a regular file/);
  });
});
