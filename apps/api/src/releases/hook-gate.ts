// The rollout gate's hook failure rule (pure): computed over endpoints, never over runs, so one endpoint cannot
// pause a ring. Each endpoint that applied the revision and ran at least `minHookRuns` hooks under it is a reporting
// endpoint with its own failure rate, failed-or-timed-out runs over runs that ran (skipped runs excluded); the gate's
// rate is the mean of those rates (each endpoint weighs once, however many runs it sent), and it closes when at least
// `minReportingEndpoints` endpoints report and that mean exceeds `maxHookFailureRate`.

/** One endpoint that applied the revision, with its runs under it. */
export interface EndpointRuns {
  endpointId: string;
  hostname: string;
  /** Runs that ran (skipped excluded). */
  ran: number;
  /** Of those, failed or timed out. */
  failed: number;
}

export interface HookGateSettings {
  maxHookFailureRate: number | null;
  minHookRuns: number;
  minReportingEndpoints: number;
}

/** One endpoint as the gate weighs it. */
export interface EndpointRate extends EndpointRuns {
  /** failed / ran (null: no run yet). */
  failureRate: number | null;
  /** Ran at least minHookRuns hooks: its rate counts, with weight 1. */
  reporting: boolean;
}

export interface HookGateResult {
  /** Every endpoint that applied the revision, worst failure rate first. */
  endpoints: EndpointRate[];
  reportingEndpoints: number;
  /** Mean of the reporting endpoints' failure rates (null: none reports). */
  failureRate: number | null;
  /** Why the gate closes, or null. */
  reason: string | null;
}

/** The formula as the rollout view and the docs state it. */
export const HOOK_GATE_FORMULA =
  'rate = mean over reporting endpoints e of failed_e / ran_e, where a reporting endpoint applied the revision and ' +
  'ran_e >= minHookRuns (ran_e: its runs under the revision that ran, skipped excluded; failed_e: those that failed ' +
  'or timed out); pauses when reporting endpoints >= minReportingEndpoints and rate > maxHookFailureRate';

/** Endpoints named in a pause reason. */
const NAMED_IN_REASON = 5;

// Orders endpoints worst first (rate, then runs, then id), endpoints without runs last.
function worstFirst(a: EndpointRate, b: EndpointRate): number {
  return (b.failureRate ?? -1) - (a.failureRate ?? -1) || b.ran - a.ran || a.endpointId.localeCompare(b.endpointId);
}

// Applies the hook failure rule to the endpoints that applied the revision.
export function hookGate(endpoints: EndpointRuns[], s: HookGateSettings): HookGateResult {
  const rated: EndpointRate[] = endpoints
    .map((e) => ({
      ...e,
      failureRate: e.ran > 0 ? e.failed / e.ran : null,
      reporting: e.ran > 0 && e.ran >= s.minHookRuns,
    }))
    .sort(worstFirst);
  const reporting = rated.filter((e) => e.reporting);
  const failureRate =
    reporting.length > 0 ? reporting.reduce((sum, e) => sum + e.failureRate!, 0) / reporting.length : null;
  let reason: string | null = null;
  if (
    s.maxHookFailureRate !== null &&
    failureRate !== null &&
    reporting.length >= s.minReportingEndpoints &&
    failureRate > s.maxHookFailureRate
  ) {
    const above = reporting.filter((e) => e.failureRate! > s.maxHookFailureRate!);
    const named = above
      .slice(0, NAMED_IN_REASON)
      .map((e) => `${e.hostname} (${e.endpointId}) ${e.failureRate!.toFixed(3)} = ${e.failed}/${e.ran}`)
      .join(', ');
    const more = above.length > NAMED_IN_REASON ? ` and ${above.length - NAMED_IN_REASON} more` : '';
    reason =
      `hook failure rate ${failureRate.toFixed(3)} (mean of ${reporting.length} reporting endpoints' own rates; ` +
      `${above.length} above ${s.maxHookFailureRate}: ${named}${more}) exceeds ${s.maxHookFailureRate}`;
  }
  return { endpoints: rated, reportingEndpoints: reporting.length, failureRate, reason };
}
