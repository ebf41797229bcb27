// Real hookwarden-agent processes for tests (the built CLI), plus on-disk layer snapshots.
import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const AGENT_BIN = path.resolve(__dirname, '../../apps/agent-sync/dist/cli/main.js');

export interface AgentProcess {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

// Spawns the agent CLI with arguments; stderr/stdout are collected.
export function spawnAgent(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): AgentProcess {
  const child = spawn(process.execPath, [AGENT_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, stdout: () => out, exited };
}

// Runs the agent to completion; returns exit code and output.
export async function runAgent(args: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}) {
  const p = spawnAgent(args, env, options);
  const code = await p.exited;
  return { code, stderr: p.stderr(), stdout: p.stdout() };
}

/** A machine enrolled with the real CLI: its root, state directory and endpoint id. */
export interface EnrolledMachine {
  root: string;
  stateDir: string;
  endpointId: string;
}

// Enrolls a machine `<dir>/<name>` (root with its own machine id, state directory) with `hookwarden-agent enroll`.
export async function enrollMachine(
  serverUrl: string,
  secret: string,
  dir: string,
  name: string,
): Promise<EnrolledMachine> {
  const root = path.join(dir, name, 'root');
  const stateDir = path.join(dir, name, 'state');
  await fs.mkdir(path.join(root, 'etc'), { recursive: true });
  await fs.writeFile(path.join(root, 'etc/machine-id'), `${name}-${Date.now()}-machine\n`);
  const r = await runAgent([
    'enroll',
    '--server',
    serverUrl,
    '--secret',
    secret,
    '--state-dir',
    stateDir,
    '--root',
    root,
  ]);
  if (r.code !== 0) throw new Error(`enroll ${name}: exit ${r.code}: ${r.stderr}`);
  const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')) as {
    endpointId: string;
  };
  return { root, stateDir, endpointId: creds.endpointId };
}

// One hook event through `hookwarden-agent hooks dispatch <event> <args…>` with `input` on stdin, as ZeroCode runs
// it; the printed dispatch result (throws on a non-zero exit).
export async function hooksDispatch<T = unknown>(
  event: string,
  args: string[],
  input: unknown,
  env: Record<string, string> = {},
): Promise<T> {
  const child = spawn(process.execPath, [AGENT_BIN, 'hooks', 'dispatch', event, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(JSON.stringify(input));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`hooks dispatch ${event}: exit ${code}: ${err}`);
  return JSON.parse(out) as T;
}

// Stops an agent (SIGTERM, then SIGKILL) and waits for it.
export async function stopAgent(p: AgentProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const t = setTimeout(() => p.child.kill('SIGKILL'), 3000);
  await p.exited;
  clearTimeout(t);
}

// Waits until `check` returns a truthy value (polling every 25 ms) or throws after `timeoutMs`.
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Every entry under `dir` (following nothing): path → file content, `->target` for links, `/` for directories.
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, r);
      if (e.isSymbolicLink()) out[r] = '->' + (await fs.readlink(full));
      else if (e.isDirectory()) {
        out[r] = '/';
        await walk(r);
      } else {
        const st = await fs.stat(full);
        out[r] = `${(st.mode & 0o777).toString(8)}:${await fs.readFile(full, 'utf8')}`;
      }
    }
  }
  await walk('');
  return out;
}

// The visible managed layer: requirements.toml plus every file under managed_dir (following the agent's links).
export async function visibleLayer(root: string, managedDir: string): Promise<Record<string, string> | null> {
  const req = await fs.readFile(path.join(root, 'etc/zerotwo/requirements.toml'), 'utf8').catch(() => null);
  const files: Record<string, string> = {};
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, managedDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = await fs.stat(path.join(root, managedDir, r));
      if (st.isDirectory()) await walk(r);
      else files[r] = `${(st.mode & 0o777).toString(8)}:${await fs.readFile(path.join(root, managedDir, r), 'utf8')}`;
    }
  }
  await walk('');
  if (req === null && Object.keys(files).length === 0) return null;
  return { 'requirements.toml': req ?? '(missing)', ...files };
}

// Peak resident set size of a live process in KiB (VmHWM from /proc), or null where /proc is absent.
export async function peakRssKb(pid: number): Promise<number | null> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  const m = status && /^VmHWM:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) : null;
}
