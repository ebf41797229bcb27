// One `hookwarden-agent run` per state directory: an exclusive lock file created with O_EXCL that names its holder
// (pid and process start time; on Windows also a named pipe the holder listens on while it holds the lock). A lock
// whose holder is gone (SIGKILL, crash, reboot) is stale and taken over, under a second O_EXCL "break" file so two
// starting agents never both take over the same stale lock.
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = 'agent.lock';

interface LockOwner {
  pid: number;
  /** Process start time (Linux: /proc/<pid>/stat field 22), so a recycled pid is not mistaken for the holder. */
  startTime: string | null;
  /** The writing process's random instance id (see INSTANCE). */
  instance?: string;
  /** Windows: a named pipe the holder listens on while it holds the lock (Windows reuses pids at once and has no
   *  /proc; a pipe disappears with its process, so "can connect" is the liveness test). */
  pipe?: string;
  hostname: string;
  command: string;
  acquiredAt: string;
}

/** Another live agent holds the state directory. */
export class LockHeld extends Error {
  constructor(
    readonly file: string,
    readonly owner: Partial<LockOwner>,
  ) {
    super(
      `another hookwarden-agent (pid ${owner.pid ?? '?'}, ${owner.command ?? 'run'} since ${owner.acquiredAt ?? '?'}) ` +
        `holds ${file}; stop it first (one agent per state directory)`,
    );
    this.name = 'LockHeld';
  }
}

// The start time of a process from /proc (null where /proc is absent or the process is gone).
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces and parentheses): state is field 3, starttime 22.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

/** How long the liveness probe of a holder's pipe may take. */
const PIPE_PROBE_MS = 2000;

// True when something listens on the named pipe (a holder that is gone leaves none: ENOENT).
function pipeAnswers(pipe: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(pipe);
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(PIPE_PROBE_MS, () => done(true)); // a busy holder is still a holder
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'ENOENT'));
  });
}

/** This process's instance: tells a lock this process wrote from one a former holder of the same pid wrote. */
const INSTANCE = randomBytes(8).toString('hex');

// True when the process that wrote `owner` still runs (same pid and, where known, same start time, or its pipe
// answers).
async function alive(owner: Partial<LockOwner>): Promise<boolean> {
  if (typeof owner.pid !== 'number' || !Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  if (owner.hostname && owner.hostname !== os.hostname()) return true; // a shared state dir on another host: keep out
  // Our own pid in a lock this process did not write: its writer was another process that is gone (pids are reused;
  // Wine and Windows hand a killed process's pid to the next one at once).
  if (owner.pid === process.pid) return owner.instance === INSTANCE;
  if (typeof owner.pipe === 'string' && process.platform === 'win32') return pipeAnswers(owner.pipe);
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.startTime) {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.startTime) return false;
  }
  return true;
}

// Windows: listens on a new named pipe for as long as the lock is held (null elsewhere, or when it cannot listen:
// the pid check then stands alone).
async function listenPipe(): Promise<{ name: string; server: net.Server } | null> {
  if (process.platform !== 'win32') return null;
  const name = `\\\\.\\pipe\\hookwarden-agent-${process.pid}-${randomBytes(8).toString('hex')}`;
  const server = net.createServer((socket) => socket.destroy());
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(name, () => resolve(true));
  });
  if (!ok) return null;
  server.unref();
  return { name, server };
}

// Reads a lock file's owner; {} when it is empty or not JSON (a holder killed while writing it), null when absent.
async function readOwner(file: string): Promise<{ owner: Partial<LockOwner>; text: string } | null> {
  try {
    const text = await fs.readFile(file, 'utf8');
    try {
      return { owner: JSON.parse(text) as Partial<LockOwner>, text };
    } catch {
      return { owner: {}, text };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

// Creates `file` exclusively with our owner record; false when it exists.
async function createExclusive(file: string, owner: LockOwner): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(JSON.stringify(owner) + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

export interface HeldLock {
  file: string;
  release(): Promise<void>;
}

// Takes the state directory's lock for `command`, taking over a stale one; throws LockHeld while a live agent has it.
export async function acquireStateLock(stateDir: string, command = 'run'): Promise<HeldLock> {
  await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, LOCK_FILE);
  const breaker = `${file}.break`;
  const pipe = await listenPipe();
  const owner: LockOwner = {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    instance: INSTANCE,
    ...(pipe ? { pipe: pipe.name } : {}),
    hostname: os.hostname(),
    command,
    acquiredAt: new Date().toISOString(),
  };
  try {
    return await take(file, breaker, owner, pipe?.server ?? null);
  } catch (err) {
    pipe?.server.close();
    throw err;
  }
}

// The acquisition loop of acquireStateLock: create, or judge the holder and take a stale lock over.
async function take(file: string, breaker: string, owner: LockOwner, server: net.Server | null): Promise<HeldLock> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(file, owner)) return held(file, JSON.stringify(owner) + '\n', server);
    const seen = await readOwner(file);
    if (!seen) continue; // released meanwhile: try again
    if (await alive(seen.owner)) throw new LockHeld(file, seen.owner);
    // Stale: take it over under the break file, and only if it still holds what we judged stale.
    if (!(await createExclusive(breaker, owner))) {
      const b = await readOwner(breaker);
      if (b && !(await alive(b.owner))) await fs.rm(breaker, { force: true });
      else await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    try {
      const again = await readOwner(file);
      if (again && again.text === seen.text) await fs.rm(file, { force: true });
    } finally {
      await fs.rm(breaker, { force: true });
    }
  }
  const last = await readOwner(file);
  throw new LockHeld(file, last?.owner ?? {});
}

// The handle of a lock we hold: release() removes the file if it is still ours, then stops listening on its pipe.
function held(file: string, text: string, server: net.Server | null): HeldLock {
  return {
    file,
    release: async () => {
      const now = await readOwner(file).catch(() => null);
      if (now?.text === text) await fs.rm(file, { force: true });
      server?.close();
    },
  };
}
