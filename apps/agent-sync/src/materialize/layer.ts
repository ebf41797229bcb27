// The managed layer on disk, swapped atomically. Layout (beside requirements.toml):
//   <etc>/.hookwarden-layer/v<rev>-<rand>/{layer.json, requirements.toml, managed/...}   one complete version each
//   <etc>/.hookwarden-layer/current -> v<rev>-<rand>                                       flipped by rename
//   <etc>/requirements.toml          -> .hookwarden-layer/current/requirements.toml
//   <managed_dir>                    -> <etc>/.hookwarden-layer/current/managed
// Both paths resolve through `current`, so one rename switches requirements.toml and managed_dir together:
// at any instant (even after SIGKILL) the endpoint holds the complete old layer or the complete new one.
//
// Where links cannot be made (probed at the first apply: Windows without the symlink right, Wine, locked-down
// machines) the layer is switched in place ("copy" strategy), gated by <etc>/.hookwarden-layer/layer-state.json:
//   1. stage the complete version as above;  2. state `switching` (the engine stops starting managed hooks);
//   3. wait until no engine holds a reader file (it holds one while managed hooks run);
//   4. replace each changed file by temp + rename (a file in use is retried, never half-written), drop old files;
//   5. state `stable` with the version's manifest: the engine runs managed hooks only when the state is stable and
//      requirements.toml and every managed file match it. After a kill mid-switch, start-up recovery rolls forward.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { requirementsPathFor } from './paths';
import {
  BundleRejected,
  LAYER_DIR_NAME,
  LAYER_READERS_DIR,
  LAYER_STATE_FILE,
  type LayerGateState,
  type VerifiedBundle,
} from '@hookwarden/hook-core';
import {
  fsyncDir,
  lstatOrNull,
  rand,
  readlinkOrNull,
  replaceFileRetrying,
  symlinkAtomic,
  writeSynced,
} from './fs-util';

export const LAYER_DIR = LAYER_DIR_NAME;
const META = 'layer.json';

/** How a layer is switched: one symlink rename, or in place behind layer-state.json (see the header). */
export type LayerStrategy = 'links' | 'copy';
/** A switch that could not happen now (hooks running, a file in use): nothing changed; the bundle is tried again. */
export class LayerBusy extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LayerBusy';
  }
}

/** A reader file older than this is stale whatever its pid (hook timeouts are far shorter). */
const STALE_READER_MS = 30 * 60_000;

export interface LayerMeta {
  /** The group whose bundle this is (absent in layers written before bundles were bound to an assignment). */
  groupId?: string;
  revision: number;
  digest: string;
  policyVersion: number;
  managedDir: string | null;
  requirementsSha256: string;
  /** The ownership manifest: files the agent put in managed_dir. */
  files: Array<{ path: string; sha256: string; mode: number }>;
}

export interface LayerOptions {
  /** Prefix of every path (tests, containers); '/' on a real machine. */
  root: string;
  platform?: NodeJS.Platform;
  /** Test hook: pause between apply steps so kill tests can land mid-apply. */
  stepDelayMs?: number;
  /** The agent's state directory: managed_dir may not overlap it. */
  stateDir?: string;
  /** 'auto' (default; $HOOKWARDEN_AGENT_LAYER_MODE may force one) probes whether links work here. */
  strategy?: LayerStrategy | 'auto';
  /** Copy strategy: how long a switch waits for running managed hooks to finish before it is postponed. */
  readerWaitMs?: number;
  /** Where this layer's requirements.toml lives (already under `root`; default the platform's): the shadow layer. */
  requirementsPath?: string;
}

// a is b or inside b.
function within(a: string, b: string): boolean {
  const rel = path.relative(b, a);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface DiskFile {
  path: string;
  sha256: string | null;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// The layer.json of a verified bundle: what it is and the files it owns.
function layerMetaOf(bundle: VerifiedBundle): LayerMeta {
  return {
    groupId: bundle.manifest.group.id,
    revision: bundle.revision,
    digest: bundle.digest,
    policyVersion: bundle.manifest.policyVersion,
    managedDir: bundle.managedDir,
    requirementsSha256: bundle.manifest.requirements.sha256,
    files: bundle.files.map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode })),
  };
}

export { requirementsPathFor };

export class Layer {
  readonly requirementsPath: string;
  readonly layerDir: string;
  private readonly root: string;
  private readonly stepDelayMs: number;
  private readonly stateDir: string | null;
  private readonly strategySetting: LayerStrategy | 'auto';
  private readonly readerWaitMs: number;
  private probed: LayerStrategy | null = null;

  constructor(opts: LayerOptions) {
    const forced = process.env.HOOKWARDEN_AGENT_LAYER_MODE;
    this.strategySetting = opts.strategy ?? (forced === 'links' || forced === 'copy' ? forced : 'auto');
    const testWait = Number(process.env.HOOKWARDEN_AGENT_TEST_READER_WAIT_MS);
    this.readerWaitMs = opts.readerWaitMs ?? (testWait > 0 ? testWait : 30_000);
    // '/' is the system root (no prefix) on every platform: resolving it on Windows would pick the current drive.
    this.root = opts.root === '/' ? '/' : path.resolve(opts.root);
    this.stateDir = opts.stateDir ? path.resolve(opts.stateDir) : null;
    this.requirementsPath = opts.requirementsPath ?? requirementsPathFor(this.root, opts.platform);
    this.layerDir = path.join(path.dirname(this.requirementsPath), LAYER_DIR);
    this.stepDelayMs = opts.stepDelayMs ?? 0;
  }

  // A policy path under the root (as written, drive included, when there is no prefix).
  rooted(p: string): string {
    if (this.root === '/') return path.resolve(p);
    return path.join(this.root, p.replace(/^[A-Za-z]:/, ''));
  }

  // What managed_dir links to.
  private get managedLinkTarget(): string {
    return path.join(this.layerDir, 'current', 'managed');
  }

  // The relative target of the requirements.toml link.
  private get requirementsLinkTarget(): string {
    return path.join(LAYER_DIR, 'current', 'requirements.toml');
  }

  // Test hook delay between steps.
  private async step(): Promise<void> {
    if (this.stepDelayMs > 0) await new Promise((r) => setTimeout(r, this.stepDelayMs));
  }

  // The version `current` points at, with its metadata; null when nothing was applied.
  async current(): Promise<{ dir: string; name: string; meta: LayerMeta } | null> {
    const gate = await this.readGate();
    const name = gate
      ? gate.state === 'stable'
        ? gate.version
        : gate.from
      : await readlinkOrNull(path.join(this.layerDir, 'current'));
    if (!name) return null;
    const dir = path.join(this.layerDir, name);
    try {
      return { dir, name, meta: JSON.parse(await fs.readFile(path.join(dir, META), 'utf8')) as LayerMeta };
    } catch {
      return null;
    }
  }

  // Start-up recovery: drops leftovers of an interrupted apply and finishes its last (idempotent) steps.
  async recover(): Promise<void> {
    const gate = await this.readGate();
    if (gate?.state === 'switching') await this.finishSwitch(gate);
    else if (gate?.state === 'stable') {
      // Restore what went missing or changed (drift), and sweep temp files a kill left beside managed files.
      const meta = await this.metaOf(gate.version);
      if (meta) await this.materialize(gate.version, meta, null);
    }
    if (gate?.managedDir) await sweepTemps(gate.managedDir, gate.files);
    let entries: string[];
    try {
      entries = await fs.readdir(this.layerDir);
    } catch {
      return;
    }
    const cur = await this.current();
    for (const e of entries) {
      if (e.startsWith('.staging-') || e.endsWith('.tmp') || (/^v\d+-/.test(e) && e !== cur?.name)) {
        await fs.rm(path.join(this.layerDir, e), { recursive: true, force: true });
      }
    }
    for (const f of await fs.readdir(path.dirname(this.requirementsPath)).catch(() => [] as string[])) {
      if (f.startsWith('.requirements.toml.') && f.endsWith('.tmp')) {
        await fs.rm(path.join(path.dirname(this.requirementsPath), f), { force: true });
      }
    }
    if (!cur || (await this.readGate())) return;
    if (cur.meta.managedDir) {
      const m = this.rooted(cur.meta.managedDir);
      if (!(await lstatOrNull(m))) {
        await fs.mkdir(path.dirname(m), { recursive: true });
        await symlinkAtomic(this.managedLinkTarget, m);
      }
    }
    if (!(await lstatOrNull(this.requirementsPath)))
      await symlinkAtomic(this.requirementsLinkTarget, this.requirementsPath);
  }

  // Refuses a managed_dir that, on this machine, is or overlaps the system config directory, the layer or the state.
  private checkManagedDir(bundle: VerifiedBundle, newM: string | null): void {
    if (!newM) return;
    const etc = path.dirname(this.requirementsPath);
    const refuse = (why: string): never => {
      throw new BundleRejected(`managed_dir ${bundle.managedDir} ${why}`, bundle.revision);
    };
    if (within(etc, newM)) refuse(`is or contains the system config directory ${etc}`);
    if (within(newM, this.layerDir)) refuse(`is inside the agent's layer directory ${this.layerDir}`);
    if (within(newM, this.requirementsPath)) refuse(`would replace ${this.requirementsPath}`);
    if (this.stateDir && (within(newM, this.stateDir) || within(this.stateDir, newM)))
      refuse(`overlaps the agent's state directory ${this.stateDir}`);
  }

  // Puts aside whatever took the place of the agent's own links (`current`, requirements.toml) so a switch can
  // always replace them: a broken layer never blocks the next good bundle.
  private async repairOwnLinks(): Promise<void> {
    for (const link of [path.join(this.layerDir, 'current'), this.requirementsPath]) {
      const st = await lstatOrNull(link);
      if (!st || st.isSymbolicLink() || (link === this.requirementsPath && st.isFile())) continue;
      const aside = path.join(this.layerDir, `displaced-${path.basename(link)}-${Date.now()}-${rand()}`);
      await fs.rename(link, aside);
      await fsyncDir(path.dirname(link));
    }
  }

  // Refuses bundle paths that would leave managed_dir through a symlink or replace a file the agent does not own.
  private async checkPaths(bundle: VerifiedBundle, source: string | null, owned: Set<string>): Promise<void> {
    if (!source) return;
    for (const f of bundle.files) {
      const parts = f.path.split('/');
      for (let i = 1; i <= parts.length; i++) {
        const rel = parts.slice(0, i).join('/');
        const st = await lstatOrNull(path.join(source, rel));
        if (!st) break;
        if (i < parts.length) {
          if (st.isSymbolicLink()) {
            throw new BundleRejected(
              `files[${JSON.stringify(f.path)}]: ${rel} is a symlink on disk: the path would leave managed_dir`,
              bundle.revision,
            );
          }
          // A file the agent owns becomes a directory: the new version is staged from scratch, so it just goes.
          if (!st.isDirectory() && owned.has(rel)) break;
          if (!st.isDirectory()) {
            throw new BundleRejected(
              `files[${JSON.stringify(f.path)}]: ${rel} is a file not owned by the agent`,
              bundle.revision,
            );
          }
        } else if (st.isDirectory() && !st.isSymbolicLink()) {
          // A directory of the old version becomes a file: only if everything in it is the agent's.
          if (!(await this.onlyOwned(source, rel, owned))) {
            throw new BundleRejected(
              `files[${JSON.stringify(f.path)}]: a directory holding files not owned by the agent is already there`,
              bundle.revision,
            );
          }
        } else if (!owned.has(rel)) {
          throw new BundleRejected(
            `files[${JSON.stringify(f.path)}]: a file not owned by the agent is already there`,
            bundle.revision,
          );
        }
      }
    }
  }

  // True when every entry under `rel` (recursively) is a file the agent owns (or a directory of such files).
  private async onlyOwned(source: string, rel: string, owned: Set<string>): Promise<boolean> {
    let entries;
    try {
      entries = await fs.readdir(path.join(source, rel), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!(await this.onlyOwned(source, r, owned))) return false;
      } else if (!owned.has(r)) return false;
    }
    return true;
  }

  // Carries files the agent does not own from the old managed dir into the new one (hard links: not touched).
  private async carryForeign(
    src: string,
    dst: string,
    rel: string,
    owned: Set<string>,
    shipped: Set<string>,
  ): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(src, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const from = path.join(src, r);
      const to = path.join(dst, r);
      // Never carry a directory that holds the staging directory into it (it would copy itself forever).
      if (within(dst, from)) continue;
      if (e.isDirectory()) {
        // An old directory of owned files that is a file in the new version (checkPaths made sure it is all ours).
        if (shipped.has(r)) continue;
        await fs.mkdir(to, { recursive: true, mode: 0o755 });
        await this.carryForeign(src, dst, r, owned, shipped);
      } else if (!owned.has(r) && !shipped.has(r)) {
        await fs.mkdir(path.dirname(to), { recursive: true, mode: 0o755 });
        if (e.isSymbolicLink()) await fs.symlink(await fs.readlink(from), to);
        else {
          try {
            await fs.link(from, to);
          } catch {
            await fs.copyFile(from, to);
          }
        }
      }
    }
  }

  /** The switch strategy here: as configured, else probed once (can this process create a symlink that reads back?). */
  async strategy(): Promise<LayerStrategy> {
    if (this.strategySetting !== 'auto') return this.strategySetting;
    if (this.probed) return this.probed;
    await fs.mkdir(this.layerDir, { recursive: true, mode: 0o755 });
    const probe = path.join(this.layerDir, `.link-probe-${rand()}.tmp`);
    try {
      await fs.symlink('probe-target', probe);
      const st = await fs.lstat(probe);
      this.probed = st.isSymbolicLink() && (await fs.readlink(probe)) === 'probe-target' ? 'links' : 'copy';
    } catch {
      this.probed = 'copy'; // EPERM without the symlink right, ENOTSUP, or a link that was never created (Wine)
    } finally {
      await fs.rm(probe, { force: true }).catch(() => undefined);
    }
    return this.probed;
  }

  // layer-state.json, the gate of the copy strategy.
  private get gatePath(): string {
    return path.join(this.layerDir, LAYER_STATE_FILE);
  }

  // The gate of the copy strategy, or null when the layer is switched with links.
  private async readGate(): Promise<LayerGateState | null> {
    try {
      return JSON.parse(await fs.readFile(this.gatePath, 'utf8')) as LayerGateState;
    } catch {
      return null;
    }
  }

  // Writes the gate atomically (retried while an engine has it open: Windows refuses to rename over it then).
  private async writeGate(state: LayerGateState): Promise<void> {
    const tmp = path.join(this.layerDir, `.${LAYER_STATE_FILE}.${rand()}.tmp`);
    await writeSynced(tmp, Buffer.from(JSON.stringify(state, null, 2)), 0o644);
    await replaceFileRetrying(tmp, this.gatePath);
    await fsyncDir(this.layerDir);
  }

  // Leaving the copy strategy (links work now): the gate would describe files that are no longer visible.
  private async dropGate(): Promise<void> {
    if (await lstatOrNull(this.gatePath)) await fs.rm(this.gatePath, { force: true });
  }

  // The gate a version is described by.
  private gateOf(state: LayerGateState['state'], name: string, from: string | null, meta: LayerMeta): LayerGateState {
    return {
      state,
      version: name,
      from,
      requirementsSha256: meta.requirementsSha256,
      managedDir: meta.managedDir ? this.rooted(meta.managedDir) : null,
      files: meta.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    };
  }

  // A version's metadata, or null when it is gone.
  private async metaOf(name: string | null): Promise<LayerMeta | null> {
    if (!name) return null;
    try {
      return JSON.parse(await fs.readFile(path.join(this.layerDir, name, META), 'utf8')) as LayerMeta;
    } catch {
      return null;
    }
  }

  // Waits until no engine holds a reader file (dead or stale readers are removed); throws when they stay too long.
  private async drainReaders(): Promise<void> {
    const dir = path.join(this.layerDir, LAYER_READERS_DIR);
    await fs.mkdir(dir, { recursive: true });
    // Engines run as the developer: they may add reader files there (sticky and world-writable, like /tmp).
    if (process.platform !== 'win32') await fs.chmod(dir, 0o1777);
    const end = Date.now() + this.readerWaitMs;
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      let live = 0;
      for (const e of await fs.readdir(dir).catch(() => [] as string[])) {
        const pid = Number(e.split('-')[0]);
        const st = await lstatOrNull(path.join(dir, e));
        const stale = !st || Date.now() - st.mtimeMs > STALE_READER_MS;
        if (!stale && Number.isInteger(pid) && pid > 0 && processAlive(pid)) live++;
        else await fs.rm(path.join(dir, e), { force: true });
      }
      if (live === 0) return;
      if (Date.now() > end) throw new LayerBusy(`${live} engine(s) are running managed hooks: layer switch postponed`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  // Makes the visible files those of version `name` (replacing changed files, dropping `prev`'s others).
  private async materialize(name: string, meta: LayerMeta, prev: LayerMeta | null): Promise<void> {
    const src = path.join(this.layerDir, name);
    const m = meta.managedDir ? this.rooted(meta.managedDir) : null;
    const prevM = prev?.managedDir ? this.rooted(prev.managedDir) : null;
    if (m) {
      await fs.mkdir(m, { recursive: true, mode: 0o755 });
      for (const f of meta.files) {
        const target = path.join(m, ...f.path.split('/'));
        await this.clearWay(m, f.path);
        const have = await fs.readFile(target).catch(() => null);
        const mode = ((await lstatOrNull(target))?.mode ?? 0) & 0o777;
        if (have && sha256(have) === f.sha256 && (process.platform === 'win32' || mode === f.mode)) continue;
        await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
        const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${rand()}.tmp`);
        await fs.copyFile(path.join(src, 'managed', ...f.path.split('/')), tmp);
        await fs.chmod(tmp, f.mode);
        await replaceFileRetrying(tmp, target);
        await this.step();
      }
    }
    if (prev && prevM) {
      const keep = prevM === m ? new Set(meta.files.map((f) => f.path)) : new Set<string>();
      for (const f of prev.files) if (!keep.has(f.path)) await removeRetrying(path.join(prevM, ...f.path.split('/')));
    }
    const req = await fs.readFile(this.requirementsPath).catch(() => null);
    const reqLink = (await lstatOrNull(this.requirementsPath))?.isSymbolicLink() ?? false;
    if (!req || reqLink || sha256(req) !== meta.requirementsSha256) {
      await fs.mkdir(path.dirname(this.requirementsPath), { recursive: true, mode: 0o755 });
      const tmp = path.join(path.dirname(this.requirementsPath), `.requirements.toml.${rand()}.tmp`);
      await fs.copyFile(path.join(src, 'requirements.toml'), tmp);
      await fs.chmod(tmp, 0o644);
      await replaceFileRetrying(tmp, this.requirementsPath);
    }
    await fsyncDir(path.dirname(this.requirementsPath));
  }

  // Removes what stands where a managed file or its directories go (checkPaths made sure it is all the agent's).
  private async clearWay(m: string, rel: string): Promise<void> {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const p = path.join(m, ...parts.slice(0, i));
      const st = await lstatOrNull(p);
      if (!st) return;
      if (i < parts.length && !st.isDirectory()) await removeRetrying(p);
      if (i === parts.length && (st.isDirectory() || st.isSymbolicLink()))
        await fs.rm(p, { recursive: true, force: true });
    }
  }

  // Completes a switch a kill interrupted: forward to its version when it is complete on disk, else back.
  private async finishSwitch(gate: LayerGateState): Promise<void> {
    const to = await this.metaOf(gate.version);
    const from = await this.metaOf(gate.from);
    const [name, meta, prev] = to ? [gate.version, to, from] : [gate.from, from, null];
    if (!name || !meta) {
      await this.dropGate();
      return;
    }
    await this.materialize(name, meta, prev);
    await this.writeGate(this.gateOf('stable', name, null, meta));
  }

  // The copy strategy's apply (see the header): stage, gate `switching`, wait for readers, replace, gate `stable`.
  private async applyInPlace(bundle: VerifiedBundle): Promise<void> {
    const newM = bundle.managedDir ? this.rooted(bundle.managedDir) : null;
    this.checkManagedDir(bundle, newM);
    const cur = await this.current();
    const oldM = cur?.meta.managedDir ? this.rooted(cur.meta.managedDir) : null;
    if (newM) {
      const st = await lstatOrNull(newM);
      if (st?.isSymbolicLink()) {
        // A link of the agent's from when links worked here: the in-place layer takes its place.
        if ((await fs.readlink(newM)) !== this.managedLinkTarget)
          throw new BundleRejected(
            `managed_dir ${bundle.managedDir} is a symlink the agent did not create`,
            bundle.revision,
          );
        await fs.rm(newM, { force: true });
      } else if (st && !st.isDirectory())
        throw new BundleRejected(`managed_dir ${bundle.managedDir} exists and is not a directory`, bundle.revision);
    }
    const sameDir = !!cur && oldM === newM;
    const owned = new Set(sameDir ? cur.meta.files.map((f) => f.path) : []);
    await this.checkPaths(bundle, newM && (await lstatOrNull(newM)) ? newM : null, owned);

    const staging = path.join(this.layerDir, `.staging-${rand()}`);
    await fs.mkdir(path.join(staging, 'managed'), { recursive: true, mode: 0o755 });
    await writeSynced(path.join(staging, 'requirements.toml'), bundle.requirements, 0o644);
    for (const f of bundle.files) {
      const file = path.join(staging, 'managed', f.path);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
      await writeSynced(file, f.content, f.mode);
      await this.step();
    }
    const meta = layerMetaOf(bundle);
    await writeSynced(path.join(staging, META), Buffer.from(JSON.stringify(meta, null, 2)), 0o644);
    const name = `v${bundle.revision}-${rand()}`;
    await fs.rename(staging, path.join(this.layerDir, name));
    await fsyncDir(this.layerDir);
    await this.step();

    await this.writeGate(this.gateOf('switching', name, cur?.name ?? null, meta));
    try {
      await this.drainReaders();
    } catch (err) {
      // Nothing visible changed yet: the old version stays in force.
      if (cur) await this.writeGate(this.gateOf('stable', cur.name, null, cur.meta));
      else await this.dropGate();
      throw err;
    }
    await this.step();
    try {
      await this.materialize(name, meta, cur?.meta ?? null);
    } catch (err) {
      // A file stayed in use (or could not be written): put the old version back whole, then try again later.
      // If even that fails, the gate stays `switching` (the engine fails closed) and start-up recovery finishes it.
      try {
        if (cur) {
          await this.materialize(cur.name, cur.meta, meta);
          await this.writeGate(this.gateOf('stable', cur.name, null, cur.meta));
        }
      } catch {
        // still in use: stays `switching` until the next attempt
      }
      throw new LayerBusy(`layer switch postponed: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.writeGate(this.gateOf('stable', name, null, meta));
    await this.step();

    // Clean up: the links of the link strategy, if this machine used it before, and old versions.
    await fs.rm(path.join(this.layerDir, 'current'), { force: true });
    if (oldM && oldM !== newM && (await readlinkOrNull(oldM)) === this.managedLinkTarget)
      await fs.rm(oldM, { force: true });
    for (const e of await fs.readdir(this.layerDir)) {
      if (/^v\d+-/.test(e) && e !== name) await fs.rm(path.join(this.layerDir, e), { recursive: true, force: true });
    }
  }

  // Writes a verified bundle as a new version and switches to it atomically (links) or behind the gate (copy).
  async apply(bundle: VerifiedBundle): Promise<void> {
    this.checkManagedDir(bundle, bundle.managedDir ? this.rooted(bundle.managedDir) : null); // before any write
    await fs.mkdir(this.layerDir, { recursive: true, mode: 0o755 });
    if ((await this.strategy()) === 'copy') return this.applyInPlace(bundle);
    await this.dropGate();
    const newM = bundle.managedDir ? this.rooted(bundle.managedDir) : null;
    this.checkManagedDir(bundle, newM);
    await fs.mkdir(this.layerDir, { recursive: true, mode: 0o755 });
    await this.repairOwnLinks();
    const cur = await this.current();
    const oldM = cur?.meta.managedDir ? this.rooted(cur.meta.managedDir) : null;
    let mState: 'none' | 'absent' | 'ours' | 'realdir' = 'none';
    if (newM) {
      const st = await lstatOrNull(newM);
      if (!st) mState = 'absent';
      else if (st.isSymbolicLink()) {
        if ((await fs.readlink(newM)) !== this.managedLinkTarget) {
          throw new BundleRejected(
            `managed_dir ${bundle.managedDir} is a symlink the agent did not create`,
            bundle.revision,
          );
        }
        mState = 'ours';
      } else if (st.isDirectory()) mState = 'realdir';
      else throw new BundleRejected(`managed_dir ${bundle.managedDir} exists and is not a directory`, bundle.revision);
    }
    const sameDir = !!cur && oldM === newM;
    const owned = new Set(sameDir ? cur.meta.files.map((f) => f.path) : []);
    const source = mState === 'ours' && cur ? path.join(cur.dir, 'managed') : mState === 'realdir' ? newM : null;
    await this.checkPaths(bundle, source, owned);

    // 1. Stage the complete new version (files flushed) under a temporary name.
    const staging = path.join(this.layerDir, `.staging-${rand()}`);
    const managed = path.join(staging, 'managed');
    await fs.mkdir(managed, { recursive: true, mode: 0o755 });
    await writeSynced(path.join(staging, 'requirements.toml'), bundle.requirements, 0o644);
    const dirs = new Set<string>([staging, managed]);
    for (const f of bundle.files) {
      const file = path.join(managed, f.path);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
      dirs.add(path.dirname(file));
      await writeSynced(file, f.content, f.mode);
      await this.step();
    }
    if (source) await this.carryForeign(source, managed, '', owned, new Set(bundle.files.map((f) => f.path)));
    const meta = layerMetaOf(bundle);
    await writeSynced(path.join(staging, META), Buffer.from(JSON.stringify(meta, null, 2)), 0o644);
    for (const d of dirs) await fsyncDir(d);
    await this.step();

    // 2. Give it its final name.
    const name = `v${bundle.revision}-${rand()}`;
    await fs.rename(staging, path.join(this.layerDir, name));
    await fsyncDir(this.layerDir);
    await this.step();

    // 3. A new managed_dir link exists before the flip, so the new requirements never name a missing directory.
    if (newM && mState === 'absent') {
      await fs.mkdir(path.dirname(newM), { recursive: true, mode: 0o755 });
      await symlinkAtomic(this.managedLinkTarget, newM);
      await this.step();
    }

    // 4. The switch: one rename.
    await symlinkAtomic(name, path.join(this.layerDir, 'current'));
    await this.step();

    // 5. First adoption of a pre-existing real managed_dir (its foreign files were carried over as hard links).
    if (newM && mState === 'realdir') {
      await fs.rename(newM, path.join(this.layerDir, `adopted-${Date.now()}`));
      await symlinkAtomic(this.managedLinkTarget, newM);
    }
    if ((await readlinkOrNull(this.requirementsPath)) !== this.requirementsLinkTarget) {
      await fs.mkdir(path.dirname(this.requirementsPath), { recursive: true, mode: 0o755 });
      await symlinkAtomic(this.requirementsLinkTarget, this.requirementsPath);
    }
    await this.step();

    // 6. Clean up: the old managed_dir link (if the policy moved it) and old versions.
    if (oldM && oldM !== newM && (await readlinkOrNull(oldM)) === this.managedLinkTarget)
      await fs.rm(oldM, { force: true });
    for (const e of await fs.readdir(this.layerDir)) {
      if (/^v\d+-/.test(e) && e !== name) await fs.rm(path.join(this.layerDir, e), { recursive: true, force: true });
    }
  }

  // Compares the on-disk layer with its ownership manifest; returns the problems (drift) and each file's digest.
  async inspect(): Promise<{ meta: LayerMeta | null; drift: string[]; files: DiskFile[] }> {
    const cur = await this.current();
    if (!cur) return { meta: null, drift: [], files: [] };
    const drift: string[] = [];
    const files: DiskFile[] = [];
    const req = await fs.readFile(this.requirementsPath).catch(() => null);
    const reqSha = req ? sha256(req) : null;
    files.push({ path: 'requirements.toml', sha256: reqSha });
    if (reqSha !== cur.meta.requirementsSha256)
      drift.push(req ? 'requirements.toml modified' : 'requirements.toml missing');
    if (cur.meta.managedDir) {
      const m = this.rooted(cur.meta.managedDir);
      const inPlace = (await this.readGate()) !== null;
      if (inPlace ? !(await lstatOrNull(m))?.isDirectory() : (await readlinkOrNull(m)) !== this.managedLinkTarget)
        drift.push('managed_dir replaced');
      for (const f of cur.meta.files) {
        const p = path.join(m, f.path);
        const data = await fs.readFile(p).catch(() => null);
        const digest = data ? sha256(data) : null;
        files.push({ path: f.path, sha256: digest });
        if (!data) drift.push(`${f.path} missing`);
        else if (digest !== f.sha256) drift.push(`${f.path} modified`);
        else if (process.platform !== 'win32') {
          const mode = (await fs.stat(p)).mode & 0o777;
          if (mode !== f.mode) drift.push(`${f.path} mode ${mode.toString(8)} ≠ ${f.mode.toString(8)}`);
        }
      }
    }
    return { meta: cur.meta, drift, files };
  }
}

// Whether a process is alive (signal 0 tests existence; EPERM means it exists but is not ours).
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Removes a file, retried while it is in use (Windows refuses to delete an open file).
async function removeRetrying(p: string): Promise<void> {
  for (let attempt = 0, delay = 25; ; attempt++, delay = Math.min(delay * 2, 1000)) {
    try {
      await fs.rm(p, { force: true });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt >= 12 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

// Removes the agent's temp files (`.<name>.<12 hex>.tmp`) from managed_dir and the directories of its files.
async function sweepTemps(managedDir: string, files: Array<{ path: string }>): Promise<void> {
  const dirs = new Set([managedDir, ...files.map((f) => path.dirname(path.join(managedDir, ...f.path.split('/'))))]);
  for (const d of dirs) {
    for (const e of await fs.readdir(d).catch(() => [] as string[])) {
      if (/^\..+\.[0-9a-f]{12}\.tmp$/.test(e)) await fs.rm(path.join(d, e), { force: true }).catch(() => undefined);
    }
  }
}
