// The engine (zerotwo-hooks) on Windows, under Wine: the Windows Node runs the built CLI; command_windows hooks run
// through cmd.exe /d /s /c, deny, carry UTF-8 both ways, and a timeout ends the whole process tree.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWine, nodeExe, runWine, runWinNode, winPath } from '../support/wine';

const CLI = path.resolve(__dirname, '../../libs/hook-core/dist/cli/main.js');
let tmp: string;
let loc: string[];
let req: string;

// A requirements.toml whose one PreToolUse hook runs `commandWindows` on Windows (and something else elsewhere).
function requirements(commandWindows: string, timeout?: number): string {
  return (
    `[hooks]\nmanaged_dir = "/opt/hw-unused"\nwindows_managed_dir = ${JSON.stringify(winPath(path.join(tmp, 'managed')))}\n\n` +
    `[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
    `command = "/bin/false"\ncommand_windows = ${JSON.stringify(commandWindows)}\n` +
    (timeout ? `timeout = ${timeout}\n` : '')
  );
}

// `zerotwo-hooks dispatch PreToolUse` under Wine with a Bash tool call.
async function dispatch(command: string) {
  const input = JSON.stringify({ cwd: winPath(tmp), session_id: 's1', tool_name: 'Bash', tool_input: { command } });
  const r = await runWinNode(CLI, ['dispatch', 'PreToolUse', ...loc], { stdin: input });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { outcome: { decision?: string; reason?: string }; runs: any[] };
}

describeWine('the engine on Windows (Wine)', () => {
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-win-engine-'));
    for (const d of ['managed', 'home', 'sys']) await fs.mkdir(path.join(tmp, d));
    req = path.join(tmp, 'requirements.toml');
    loc = ['--home', winPath(path.join(tmp, 'home')), '--system-dir', winPath(path.join(tmp, 'sys'))];
    loc.push('--requirements', winPath(req));
    await fs.writeFile(
      path.join(tmp, 'managed', 'deny.cmd'),
      '@echo off\r\necho blocked by the Windows policy>&2\r\nexit /b 2\r\n',
    );
    await fs.writeFile(
      path.join(tmp, 'managed', 'json-deny.js'),
      `let s = '';\nprocess.stdin.on('data', (c) => (s += c)).on('end', () => {\n` +
        `  const i = JSON.parse(s);\n` +
        `  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', ` +
        `permissionDecision: 'deny', permissionDecisionReason: 'saw ' + i.tool_input.command } }) + '\\r\\n');\n});\n`,
    );
  }, 240_000);
  afterAll(async () => {
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('prints its version', async () => {
    const r = await runWinNode(CLI, ['--version']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, 120_000);

  it('list shows command_windows; a managed .cmd hook denies through cmd.exe', async () => {
    const cmd = winPath(path.join(tmp, 'managed', 'deny.cmd'));
    await fs.writeFile(req, requirements(`"${cmd}" --check`));
    const list = await runWinNode(CLI, ['list', ...loc]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`"${cmd}" --check`);
    expect(list.stdout).not.toContain('/bin/false');
    const r = await dispatch('rm -rf /');
    expect(r.outcome).toMatchObject({ decision: 'deny', reason: 'blocked by the Windows policy' });
  }, 120_000);

  it('a node.exe hook reads UTF-8 JSON on stdin and answers JSON with CRLF', async () => {
    await fs.writeFile(
      req,
      requirements(`"${winPath(await nodeExe())}" "${winPath(path.join(tmp, 'managed', 'json-deny.js'))}"`),
    );
    const r = await dispatch('rm -rf ünïcödé');
    expect(r.outcome).toMatchObject({ decision: 'deny', reason: 'saw rm -rf ünïcödé' });
  }, 120_000);

  it('a timeout ends the whole process tree (the shell and what it started)', async () => {
    await fs.writeFile(req, requirements('ping -n 600 127.0.0.1 >nul', 2));
    const r = await dispatch('ls');
    expect(r.runs[0]).toMatchObject({ status: 'timed_out' });
    expect(JSON.stringify(r.runs[0])).toMatch(/timed out/);
    const ps = await runWine('wmic', ['process', 'get', 'Name,CommandLine']);
    const table = ps.stdout.replace(/\0/g, ''); // wmic writes UTF-16 to a file
    expect(table).toMatch(/services\.exe/i);
    expect(table).not.toMatch(/ping\s+-n 600/);
  }, 120_000);
});
