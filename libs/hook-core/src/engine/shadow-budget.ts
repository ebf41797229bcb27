// The shadow budget: how long a shadow release's hooks may keep running after the enforced hooks of an event are
// done (the grace), as the signed manifest and shadow-release.json carry it. No I/O: the API validates with it too.

/** Default grace after the enforced hooks are done before the shadow hooks still running are killed (ms). */
export const DEFAULT_SHADOW_GRACE_MS = 100;
/** Largest grace a shadow release may ask for (`budgetMs` of its manifest and shadow-release.json), in ms. */
export const MAX_SHADOW_GRACE_MS = 5000;

// A shadow budget as the manifest and shadow-release.json carry it: a whole number of ms within the bounds, else null.
export function shadowBudget(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_SHADOW_GRACE_MS ? v : null;
}
