// The managed layer's gate, for machines where the agent cannot switch layers with links (Windows without the right
// to create symlinks, Wine): the agent replaces files in place and says so in <layer dir>/layer-state.json. The engine
// runs managed hooks only when that state is `stable` and requirements.toml and every managed file match its
// manifest; while hooks run it holds a reader file, and the agent does not replace files while a reader is live.
// Without a state file (the agent switches with links, or no agent) nothing changes.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { osRandomBytes, sha256Hex } from '../record/canonical';

/** The agent's layer directory, beside requirements.toml. */
export const LAYER_DIR_NAME = '.hookwarden-layer';
/** The gate: which version the visible files are, or that a switch is in progress. */
export const LAYER_STATE_FILE = 'layer-state.json';
/** Reader files of engines running managed hooks (`<pid>-<random>`). */
export const LAYER_READERS_DIR = 'readers';
/** Largest layer-state.json read. */
const MAX_STATE_BYTES = 4 * 1024 * 1024;

/** The content of layer-state.json. */
export interface LayerGateState {
  state: 'stable' | 'switching';
  /** The version the visible files are (stable) or are being switched to (switching). */
  version: string;
  /** The version being switched from (switching), null when none. */
  from: string | null;
  requirementsSha256: string;
  /** managed_dir as on disk (absolute), null when the version has none. */
  managedDir: string | null;
  files: Array<{ path: string; sha256: string }>;
}

const sha256 = (b: Buffer | string): string => sha256Hex(b);

// layer-state.json beside a requirements.toml.
function statePathOf(requirementsPath: string): string {
  return path.join(path.dirname(requirementsPath), LAYER_DIR_NAME, LAYER_STATE_FILE);
}

/** Reads the gate: undefined when there is none, else the state or why it cannot be read. */
export function readLayerGate(requirementsPath: string): LayerGateState | { unreadable: string } | undefined {
  const file = statePathOf(requirementsPath);
  let data: Buffer;
  try {
    if (statSync(file).size > MAX_STATE_BYTES) return { unreadable: `${file} is larger than ${MAX_STATE_BYTES} bytes` };
    data = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { unreadable: `cannot read ${file}: ${(e as Error).message}` };
  }
  try {
    const s = JSON.parse(data.toString('utf8')) as LayerGateState;
    if ((s.state !== 'stable' && s.state !== 'switching') || !Array.isArray(s.files)) throw new Error('bad shape');
    return s;
  } catch {
    return { unreadable: `${file} is not a layer state` };
  }
}

/**
 * Why the managed layer must not run now (a switch in progress, or files that do not match the layer's manifest),
 * or null when it may (also when there is no gate). `requirementsText` is the requirements.toml just read.
 */
export function managedLayerProblem(requirementsPath: string, requirementsText: string): string | null {
  const gate = readLayerGate(requirementsPath);
  if (gate === undefined) return null;
  if ('unreadable' in gate) return gate.unreadable;
  if (gate.state === 'switching') return `the agent is switching the managed layer to ${gate.version}`;
  if (sha256(requirementsText) !== gate.requirementsSha256)
    return `${requirementsPath} does not match the managed layer's manifest (${gate.version})`;
  for (const f of gate.files) {
    if (gate.managedDir === null) return `the managed layer ${gate.version} lists files but no managed_dir`;
    const p = path.join(gate.managedDir, ...f.path.split('/'));
    let digest: string | null;
    try {
      digest = sha256(readFileSync(p));
    } catch {
      digest = null;
    }
    if (digest !== f.sha256) return `${p} does not match the managed layer's manifest (${gate.version})`;
  }
  return null;
}

// Sleeps synchronously (discovery is synchronous; this only runs while a switch is in progress).
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A held managed layer: release() when the managed hooks are done. */
export interface LayerHold {
  release(): void;
}

/**
 * Registers this process as a reader of the managed layer before its hooks are checked and run, so the agent does not
 * start replacing files under them. While a switch is in progress it steps aside (so the agent is not kept waiting)
 * and retries for up to `waitMs`; the caller's discovery then runs on a stable layer or fails closed.
 */
export function holdManagedLayer(requirementsPath: string | undefined, waitMs = 3000): LayerHold {
  const none: LayerHold = { release: () => undefined };
  if (requirementsPath === undefined || readLayerGate(requirementsPath) === undefined) return none;
  const dir = path.join(path.dirname(requirementsPath), LAYER_DIR_NAME, LAYER_READERS_DIR);
  const end = Date.now() + waitMs;
  for (;;) {
    const file = path.join(dir, `${process.pid}-${osRandomBytes(6).toString('hex')}`);
    try {
      mkdirSync(dir, { recursive: true });
      const fd = openSync(file, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
    } catch {
      // Cannot register (no right to write there): the layer is still checked before anything runs.
      return none;
    }
    const release = (): void => rmSync(file, { force: true });
    const gate = readLayerGate(requirementsPath);
    if (gate === undefined || 'unreadable' in gate || gate.state === 'stable' || Date.now() >= end) return { release };
    release();
    sleepSync(50);
  }
}
