// Dispatch's one hook into the shadow layer: which shadow requirements.toml goes with a dispatch, and starting it.
import { managedRequirementsPath, type DiscoverOptions } from '../config/discover';
import type { Discovery } from '../types';
import { shadowRequirementsPath, startShadow, type ShadowOptions, type ShadowRun, type ShadowStart } from './shadow';

export type { ShadowOptions, ShadowResult } from './shadow';

/**
 * Starts the shadow layer of a dispatch, if any: `options.shadow` names it, else it sits beside the enforced
 * requirements.toml. Nothing runs when hooks are off or `options.shadow` is false.
 */
export function shadowLayerFor(
  discovery: Discovery,
  options: { shadow?: ShadowOptions | false; discovery?: Discovery; discoverOptions?: DiscoverOptions },
  start: ShadowStart,
): ShadowRun | undefined {
  if (options.shadow === false || !discovery.hooksEnabled) return undefined;
  const enforced =
    discovery.managed?.requirementsPath ??
    (options.discovery === undefined ? managedRequirementsPath(options.discoverOptions) : undefined);
  const requirementsPath =
    options.shadow?.requirementsPath ?? (enforced !== undefined ? shadowRequirementsPath(enforced) : undefined);
  if (requirementsPath === undefined) return undefined;
  return startShadow({ ...options.shadow, requirementsPath }, start);
}
