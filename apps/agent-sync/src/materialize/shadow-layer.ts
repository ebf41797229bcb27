// The shadow layer on disk (issue 27): a second managed layer in <dir of requirements.toml>/shadow/, switched
// atomically like the managed one (same Layer, its requirements.toml in shadow/), whose hooks the engine runs in
// observe mode. A shadow bundle is confined to shadow/: its managed_dir must be inside it (hook-core's content rules
// for the shadow layer, then this machine's real paths here), so it can never change the enforced requirements.toml or
// managed_dir. Removing it (abort) takes the whole directory away in one rename.
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

/** Prefix of a removed shadow directory waiting to be deleted (beside shadow/). */
const REMOVED_PREFIX = '.shadow-removed-';

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

  /** Why a bundle may not be applied as the shadow layer here (null when it may). */
  problem(bundle: VerifiedBundle): string | null {
    if (bundle.layer !== 'shadow' || bundle.shadowReleaseId === null)
      return 'shadow layer: the bundle was not verified as a shadow bundle';
    if (bundle.managedDir === null) return null;
    const m = this.layer.rooted(bundle.managedDir);
    if (!within(m, this.dir) || m === this.dir)
      return `shadow bundle: managed_dir ${bundle.managedDir} is outside the shadow layer ${this.dir}; a shadow release never changes the enforced layer`;
    if (within(m, path.join(this.dir, LAYER_DIR)))
      return `shadow bundle: managed_dir ${bundle.managedDir} is inside the layer directory`;
    return null;
  }

  /** Applies a verified shadow bundle (refused with BundleRejected, before any write, when it leaves shadow/). */
  async apply(bundle: VerifiedBundle): Promise<void> {
    const why = this.problem(bundle);
    if (why !== null) throw new BundleRejected(why, bundle.revision);
    await this.layer.apply(bundle);
    await writeFileAtomic(
      path.join(this.dir, SHADOW_RELEASE_FILE),
      JSON.stringify({
        releaseId: bundle.shadowReleaseId,
        version: `${bundle.manifest.policyVersion}`,
        revision: bundle.revision,
        // The grace the engine gives these hooks after the enforced ones (signed in the manifest; default when absent).
        ...(bundle.manifest.shadow?.budgetMs !== undefined ? { budgetMs: bundle.manifest.shadow.budgetMs } : {}),
      }),
      0o644,
    );
  }

  /** The shadow layer's digest and revision on disk (null: none). */
  async current(): Promise<{ revision: number; digest: string } | null> {
    if (!(await lstatOrNull(this.dir))) return null;
    const cur = await this.layer.current();
    return cur ? { revision: cur.meta.revision, digest: cur.meta.digest } : null;
  }

  /** Start-up: finishes an interrupted switch or removal (leftovers of a removal are deleted). */
  async recover(): Promise<void> {
    const parent = path.dirname(this.dir);
    for (const e of await fs.readdir(parent).catch(() => [] as string[])) {
      if (e.startsWith(REMOVED_PREFIX)) await fs.rm(path.join(parent, e), { recursive: true, force: true });
    }
    if (await lstatOrNull(this.dir)) await this.layer.recover();
  }

  /** Removes the shadow layer (abort): one rename makes it disappear for the engine, then the rest is deleted. */
  async remove(): Promise<void> {
    if (!(await lstatOrNull(this.dir))) return;
    const aside = path.join(path.dirname(this.dir), `${REMOVED_PREFIX}${rand()}`);
    await fs.rename(this.dir, aside);
    await fsyncDir(path.dirname(this.dir));
    await fs.rm(aside, { recursive: true, force: true });
  }
}
