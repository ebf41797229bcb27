// Shadow report (issue 27 §2): compares, event by event (dispatch id), what the shadow release's hooks would have
// decided with what the enforced hooks decided. Pure: the repository loads the records, this counts them.

/** The fields of a hook-run record the report reads (enforced and shadow runs of the same dispatches). */
export interface ReportRun {
  id: string;
  endpointId: string;
  dispatchId: string;
  recordedAt: string;
  hookKey: string;
  /** The run's layer was managed (the shadow version replaces the managed layer when promoted). */
  managed: boolean;
  effect: string;
  /** Null for enforced runs; the shadow release id for shadow runs. */
  shadowReleaseId: string | null;
  /** What a shadow run would have done (deny, block, rewrite, context, continue, error, timeout, …). */
  wouldHave: string | null;
  toolName: string | null;
  /** The command of a Bash / apply_patch call where the capture policy kept it. */
  toolCommand: string | null;
}

/** The categories a shadowed event falls into (an event may be in several: a rewrite that also errored elsewhere). */
export const SHADOW_CATEGORIES = ['wouldNewlyDeny', 'wouldStopDenying', 'rewrites', 'errors', 'timeouts'] as const;
export type ShadowCategory = (typeof SHADOW_CATEGORIES)[number];

type Counts = Record<ShadowCategory, number>;

/** One event given as an example of a category. */
export interface ShadowSample {
  category: ShadowCategory;
  dispatchId: string;
  endpointId: string;
  recordedAt: string;
  hookKey: string;
  toolName: string | null;
  toolCommand: string | null;
  /** The shadow run and the enforced runs of the event (drill-down to the records). */
  shadowRunId: string;
  enforcedRunIds: string[];
}

/** The report. */
export interface ShadowReport {
  releaseId: string;
  /** Events the shadow layer ran on. */
  events: number;
  shadowRuns: number;
  totals: Counts;
  byHook: Array<{ hookKey: string } & Counts>;
  byEndpoint: Array<{ endpointId: string } & Counts>;
  byToolCommand: Array<{ toolName: string | null; toolCommand: string | null } & Counts>;
  samples: ShadowSample[];
}

/** Samples kept per category. */
export const SAMPLES_PER_CATEGORY = 5;
/** Rows kept per breakdown (worst first). */
export const MAX_BREAKDOWN_ROWS = 100;

const DENYING = new Set(['deny', 'block']);
const zero = (): Counts => ({ wouldNewlyDeny: 0, wouldStopDenying: 0, rewrites: 0, errors: 0, timeouts: 0 });
const total = (c: Counts): number => SHADOW_CATEGORIES.reduce((n, k) => n + c[k], 0);

/** The categories of one event for one shadow run, given the event's enforced runs and all its shadow runs. */
export function categorize(
  shadow: ReportRun,
  enforced: readonly ReportRun[],
  shadowRuns: readonly ReportRun[],
): ShadowCategory[] {
  const out: ShadowCategory[] = [];
  const enforcedDeny = enforced.some((r) => DENYING.has(r.effect));
  // Enforced denials the shadow version would keep: those of hooks outside the managed layer.
  const unmanagedDeny = enforced.some((r) => !r.managed && DENYING.has(r.effect));
  const managedDeny = enforced.some((r) => r.managed && DENYING.has(r.effect));
  const shadowDeny = shadowRuns.some((r) => DENYING.has(r.wouldHave ?? ''));
  if (DENYING.has(shadow.wouldHave ?? '') && !enforcedDeny) out.push('wouldNewlyDeny');
  // Counted once per event, on its first shadow run.
  if (shadow === shadowRuns[0] && managedDeny && !unmanagedDeny && !shadowDeny) out.push('wouldStopDenying');
  if (shadow.wouldHave === 'rewrite') out.push('rewrites');
  if (shadow.wouldHave === 'error') out.push('errors');
  if (shadow.wouldHave === 'timeout') out.push('timeouts');
  return out;
}

/** Adds one to each category of a row in a keyed table. */
function bump<T extends object>(
  table: Map<string, T & Counts>,
  key: string,
  make: () => T,
  cats: ShadowCategory[],
): void {
  let row = table.get(key);
  if (!row) {
    row = { ...make(), ...zero() };
    table.set(key, row);
  }
  for (const c of cats) row[c]++;
}

/** Rows with something to report, worst first, bounded. */
function rows<T extends Counts>(table: Map<string, T>): T[] {
  return [...table.values()]
    .filter((r) => total(r) > 0)
    .sort((a, b) => total(b) - total(a))
    .slice(0, MAX_BREAKDOWN_ROWS);
}

/** Builds the report of a shadow release from the runs of the events its layer ran on. */
export function buildShadowReport(releaseId: string, runs: readonly ReportRun[]): ShadowReport {
  const byDispatch = new Map<string, { enforced: ReportRun[]; shadow: ReportRun[] }>();
  for (const r of runs) {
    if (r.shadowReleaseId !== null && r.shadowReleaseId !== releaseId) continue;
    const key = `${r.endpointId}\u0000${r.dispatchId}`;
    let e = byDispatch.get(key);
    if (!e) byDispatch.set(key, (e = { enforced: [], shadow: [] }));
    (r.shadowReleaseId === null ? e.enforced : e.shadow).push(r);
  }
  const totals = zero();
  const byHook = new Map<string, { hookKey: string } & Counts>();
  const byEndpoint = new Map<string, { endpointId: string } & Counts>();
  const byTool = new Map<string, { toolName: string | null; toolCommand: string | null } & Counts>();
  const samples: ShadowSample[] = [];
  const sampled = zero();
  let events = 0;
  let shadowRuns = 0;
  for (const { enforced, shadow } of byDispatch.values()) {
    if (shadow.length === 0) continue;
    events++;
    const eventCats = new Set<ShadowCategory>();
    for (const s of shadow) {
      shadowRuns++;
      const cats = categorize(s, enforced, shadow);
      bump(byHook, s.hookKey, () => ({ hookKey: s.hookKey }), cats);
      for (const c of cats) {
        eventCats.add(c);
        if (sampled[c] < SAMPLES_PER_CATEGORY) {
          sampled[c]++;
          samples.push({
            category: c,
            dispatchId: s.dispatchId,
            endpointId: s.endpointId,
            recordedAt: s.recordedAt,
            hookKey: s.hookKey,
            toolName: s.toolName,
            toolCommand: s.toolCommand,
            shadowRunId: s.id,
            enforcedRunIds: enforced.map((r) => r.id),
          });
        }
      }
    }
    // Totals and the endpoint / command breakdowns count events, not runs.
    const cats = [...eventCats];
    for (const c of cats) totals[c]++;
    const first = shadow[0]!;
    bump(byEndpoint, first.endpointId, () => ({ endpointId: first.endpointId }), cats);
    bump(
      byTool,
      `${first.toolName ?? ''}\u0000${first.toolCommand ?? ''}`,
      () => ({ toolName: first.toolName, toolCommand: first.toolCommand }),
      cats,
    );
  }
  return {
    releaseId,
    events,
    shadowRuns,
    totals,
    byHook: rows(byHook),
    byEndpoint: rows(byEndpoint),
    byToolCommand: rows(byTool),
    samples,
  };
}

/** The report's summary kept in the audit log at promote / abort. */
export function shadowReportSummary(r: ShadowReport): { events: number; shadowRuns: number } & Counts {
  return { events: r.events, shadowRuns: r.shadowRuns, ...r.totals };
}
