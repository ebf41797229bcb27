// The managed layer on disk, swapped atomically. Layout (beside requirements.toml):
//   <etc>/.hookwarden-layer/v<rev>-<rand>/{layer.json, requirements.toml, managed/...}   one complete version each
//   <etc>/.hookwarden-layer/current -> v<rev>-<rand>                                       flipped by rename
//   <etc>/requirements.toml          -> .hookwarden-layer/current/requirements.toml
//   <managed_dir>                    -> <etc>/.hookwarden-layer/current/managed
// Both paths resolve through `current`, so one rename switches requirements.toml and managed_dir together:
// at any instant (even after SIGKILL) the endpoint holds the complete old layer or the complete new one.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { BundleRejected, type VerifiedBundle } from '@hookwarden/hook-core';
import { fsyncDir, lstatOrNull, rand, readlinkOrNull, symlinkAtomic, writeSynced } from './fs-util';

export const LAYER_DIR = '.hookwarden-layer';
const META = 'layer.json';

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

// Where the managed requirements live for the platform (hook-core reads them there), under `root`.
export function requirementsPathFor(root: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    const programData = process.env.ProgramData ?? 'C:\\ProgramData';
    return path.join(
      root === '/' ? programData : path.join(root, programData.replace(/^[A-Za-z]:/, '')),
      'ZeroTwo',
      'requirements.toml',
    );
  }
  return path.join(root, 'etc', 'zerotwo', 'requirements.toml');
}

export class Layer {
  readonly requirementsPath: string;
  readonly layerDir: string;
  private readonly root: string;
  private readonly stepDelayMs: number;
  private readonly stateDir: string | null;

  constructor(opts: LayerOptions) {
    this.root = path.resolve(opts.root);
    this.stateDir = opts.stateDir ? path.resolve(opts.stateDir) : null;
    this.requirementsPath = requirementsPathFor(this.root, opts.platform);
    this.layerDir = path.join(path.dirname(this.requirementsPath), LAYER_DIR);
    this.stepDelayMs = opts.stepDelayMs ?? 0;
  }

  // A policy path under the root.
  rooted(p: string): string {
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
    const name = await readlinkOrNull(path.join(this.layerDir, 'current'));
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
    if (!cur) return;
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

  // Writes a verified bundle as a new version and switches to it atomically.
  async apply(bundle: VerifiedBundle): Promise<void> {
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
    const meta: LayerMeta = {
      groupId: bundle.manifest.group.id,
      revision: bundle.revision,
      digest: bundle.digest,
      policyVersion: bundle.manifest.policyVersion,
      managedDir: bundle.managedDir,
      requirementsSha256: bundle.manifest.requirements.sha256,
      files: bundle.files.map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode })),
    };
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
      if ((await readlinkOrNull(m)) !== this.managedLinkTarget) drift.push('managed_dir replaced');
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
