// The shadow layer on disk (issue 27): a second managed layer in <dir of requirements.toml>/shadow/, switched
// atomically like the managed one (same Layer, its requirements.toml in shadow/), whose hooks the engine runs in
// observe mode. A shadow bundle is confined to shadow/: its managed_dir must be inside it, so it can never change the
// enforced requirements.toml or managed_dir. Removing it (abort) takes the whole directory away in one rename.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  BundleRejected,
  SHADOW_RELEASE_FILE,
  shadowRequirementsPath,
  type VerifiedBundle,
} from '@hookwarden/hook-core';
import { writeFileAtomic } from '../state/atomic-file';
import { fsyncDir, lstatOrNull, rand } from './fs-util';
import { Layer, LAYER_DIR, requirementsPathFor, type LayerOptions } from './layer';

// a is b or inside b.
function within(a: string, b: string): boolean {
  const rel = path.relative(b, a);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The shadow layer of a machine (under `root`). */
export class ShadowLayer {
  readonly layer: Layer;
  /** The shadow directory: everything the shadow layer writes is inside it. */
  readonly dir: string;

  constructor(opts: Omit<LayerOptions, 'requirementsPath'>) {
    const root = opts.root === '/' ? '/' : path.resolve(opts.root);
    const requirementsPath = shadowRequirementsPath(requirementsPathFor(root, opts.platform));
    this.layer = new Layer({ ...opts, requirementsPath });
    this.dir = path.dirname(requirementsPath);
  }

  /** Why a shadow bundle may not be applied here (null when it may): its managed_dir must be inside the shadow dir. */
  problem(bundle: VerifiedBundle): string | null {
    if (bundle.managedDir === null) return null;
    const m = this.layer.rooted(bundle.managedDir);
    if (!within(m, this.dir) || m === this.dir)
      return `shadow bundle: managed_dir ${bundle.managedDir} is outside the shadow layer ${this.dir}; a shadow release never changes the enforced layer`;
    if (within(m, path.join(this.dir, LAYER_DIR)))
      return `shadow bundle: managed_dir ${bundle.managedDir} is inside the layer directory`;
    return null;
  }

  /** Applies a verified shadow bundle of `releaseId` (refused with BundleRejected when it leaves the shadow dir). */
  async apply(bundle: VerifiedBundle, releaseId: string): Promise<void> {
    const why = this.problem(bundle);
    if (why !== null) throw new BundleRejected(why, bundle.revision);
    await this.layer.apply(bundle);
    await writeFileAtomic(
      path.join(this.dir, SHADOW_RELEASE_FILE),
      JSON.stringify({ releaseId, version: `${bundle.revision}` }),
      0o644,
    );
  }

  /** Removes the shadow layer (abort): one rename makes it disappear for the engine, then the rest is deleted. */
  async remove(): Promise<void> {
    if (!(await lstatOrNull(this.dir))) return;
    const aside = path.join(path.dirname(this.dir), `.shadow-removed-${rand()}`);
    await fs.rename(this.dir, aside);
    await fsyncDir(path.dirname(this.dir));
    await fs.rm(aside, { recursive: true, force: true });
  }
}
