import { existsSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginEnv, runCommand, shellInvocation, substitutePluginVars } from '@hookwarden/hook-core';
import { descendantsOf, parseProcessTable } from '../../src/run/runner';

const fx = (name: string): string => join(__dirname, '..', 'fixtures', name);
const cwd = tmpdir();

/** True while a pid is alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

describe('runCommand', () => {
  it('passes the input on stdin and closes it', async () => {
    const r = await runCommand({ command: fx('echo-stdin.sh'), cwd, stdin: '{"a":1}', timeoutSec: 10 });
    expect(r).toMatchObject({ exitCode: 0, signal: null, timedOut: false, stdout: '{"a":1}', stderr: '' });
    expect(r.durationMs).toBeGreaterThan(0);
  });

  it('a hook that never reads a large stdin is not an error (EPIPE ignored)', async () => {
    const r = await runCommand({ command: fx('ignore-stdin.sh'), cwd, stdin: 'x'.repeat(4 << 20), timeoutSec: 10 });
    expect(r.exitCode).toBe(0);
    expect(r.spawnError).toBeUndefined();
  });

  it('runs in the given cwd through /bin/sh -c', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hc-cwd-'));
    const r = await runCommand({ command: 'pwd; echo "$0"', cwd: dir, stdin: '', timeoutSec: 10 });
    expect(r.stdout.split('\n')[0]).toBe(dir);
    expect(r.stdout.split('\n')[1]).toBe('/bin/sh');
  });

  it('reports exit codes and signals', async () => {
    expect((await runCommand({ command: 'exit 7', cwd, stdin: '', timeoutSec: 5 })).exitCode).toBe(7);
    const k = await runCommand({ command: 'kill -9 $$', cwd, stdin: '', timeoutSec: 5 });
    expect(k.exitCode).toBeNull();
    expect(k.signal).toBe('SIGKILL');
  });

  it('caps captured output per stream and flags the excess', async () => {
    const r = await runCommand(
      { command: `${fx('flood.sh')} 300000`, cwd, stdin: '', timeoutSec: 10 },
      { maxOutputBytes: 100_000 },
    );
    expect(r.stdout.length).toBe(100_000);
    expect(r.stderr.length).toBe(100_000);
    expect(r.stdoutTruncated && r.stderrTruncated).toBe(true);
  });

  it('timeout kills the whole process group, grandchild included', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'hc-gc-')), 'pid');
    const r = await runCommand({ command: `${fx('spawn-grandchild.sh')} ${pidFile}`, cwd, stdin: '', timeoutSec: 1 });
    expect(r.timedOut).toBe(true);
    expect(existsSync(pidFile)).toBe(true);
    const gc = Number(readFileSync(pidFile, 'utf8').trim());
    await new Promise((res) => setTimeout(res, 100));
    expect(alive(gc)).toBe(false);
  });

  it('a group that ignores SIGTERM is killed with SIGKILL', async () => {
    const r = await runCommand(
      { command: `exec ${fx('ignore-term.sh')}`, cwd, stdin: '', timeoutSec: 1 },
      { killGraceMs: 100 },
    );
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
  });

  it('does not wait for a background child that keeps the pipes open', async () => {
    // Waiting for the pipes would hit the 10 s timeout (the child sleeps 60 s): it must end as a clean exit instead.
    const r = await runCommand({ command: 'sleep 60 & echo started', cwd, stdin: '', timeoutSec: 10 });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('started\n');
  });

  it('login shell option uses bash -lc; Windows uses COMSPEC /C', () => {
    expect(shellInvocation('x', { loginShell: true })).toEqual({ file: 'bash', args: ['-lc', 'x'] });
    expect(shellInvocation('x', { platform: 'win32', comspec: 'C:\\cmd.exe' })).toMatchObject({
      file: 'C:\\cmd.exe',
      args: ['/d', '/s', '/c', '"x"'],
    });
  });
});

describe('plugin variables', () => {
  const plugin = { root: '/opt/plug in', dataDir: '/var/plug-data' };
  it.each([
    ['"${CLAUDE_PLUGIN_ROOT}"/bin/run-hook.sh x', '"/opt/plug in"/bin/run-hook.sh x'],
    ['${CLAUDE_PLUGIN_ROOT}/hooks/a.py', '/opt/plug in/hooks/a.py'],
    ['node "${PLUGIN_ROOT}/bin/h.mjs"', 'node "/opt/plug in/bin/h.mjs"'],
    ["python3 '${CLAUDE_PLUGIN_ROOT}/hooks/s.py'", "python3 '/opt/plug in/hooks/s.py'"],
    ['hook="$CLAUDE_PLUGIN_ROOT/hooks/g"', 'hook="/opt/plug in/hooks/g"'],
    ['$PLUGIN_DATA/x ${CLAUDE_PLUGIN_DATA}', '/var/plug-data/x /var/plug-data'],
    ['$PLUGIN_ROOTS stays', '$PLUGIN_ROOTS stays'],
    ['node ${CODEX_PLUGIN_ROOT}/a.js', 'node ${CODEX_PLUGIN_ROOT}/a.js'],
  ])('%s', (input, expected) => expect(substitutePluginVars(input, plugin)).toBe(expected));

  it('plugin env reaches the hook', async () => {
    const r = await runCommand({
      command: fx('print-env.sh'),
      cwd,
      stdin: '',
      timeoutSec: 5,
      env: pluginEnv(process.env, plugin),
    });
    expect(r.stdout).toContain('PLUGIN_ROOT=/opt/plug in\n');
    expect(r.stdout).toContain('CLAUDE_PLUGIN_DATA=/var/plug-data\n');
  });
});

describe('Windows process tree walk (where taskkill /T is missing)', () => {
  it('parses wmic output in UTF-16 or 8-bit text and finds every descendant once', () => {
    const text = 'ParentProcessId  ProcessId\r\n0  4\r\n4  10\r\n10  11\r\n11  12\r\n10  13\r\n99  100\r\n12  10\r\n';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    for (const buf of [utf16, Buffer.from(text, 'latin1')]) {
      const table = parseProcessTable(buf);
      expect(descendantsOf(10, table).sort((a, b) => a - b)).toEqual([11, 12, 13]);
      expect(descendantsOf(100, table)).toEqual([]);
    }
  });
});
