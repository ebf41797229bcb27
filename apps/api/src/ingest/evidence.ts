// What a batch's stored records say about revisions (pure): per-endpoint run counts for the rollout gate, and the
// revisions they claim, to be checked against what the endpoint was served.
import type { IngestRow } from './ingest.parse';

/** A claimed revision the counts keep: a release number (int4, no sign or leading zero). */
const RELEASE_REVISION = /^[1-9]\d{0,8}$/;
/** Unserved revisions reported one finding each per batch; beyond that they share one finding. */
export const MAX_UNSERVED_FINDINGS_PER_BATCH = 20;

/** Runs of one endpoint under one claimed release revision in one UTC hour. */
export interface EndpointCount {
  revision: number;
  hour: string;
  /** Runs that ran (skipped excluded). */
  ran: number;
  /** Of those, failed or timed out. */
  failed: number;
}

/** Records of a batch claiming one policy revision. */
export interface RevisionClaim {
  /** The claimed revision as recorded (null: several unserved revisions beyond the per-batch cap). */
  revision: string | null;
  count: number;
  fromSeq: number;
  toSeq: number;
  /** Distinct revisions merged into this claim (1 unless it is the overflow claim). */
  revisions: number;
}

// The UTC hour containing an ISO time, as ISO text.
function hourOf(iso: string): string {
  const t = Date.parse(iso);
  return new Date(t - (((t % 3_600_000) + 3_600_000) % 3_600_000)).toISOString();
}

// The release revision a record claims, or null when it claims none or something that is not a release number.
export function releaseRevisionOf(claimed: string | null): number | null {
  return claimed !== null && RELEASE_REVISION.test(claimed) ? Number(claimed) : null;
}

// Counts of the rows per claimed release revision and hour (rows claiming no release number, and hours with only
// skipped runs, are left out).
export function endpointCounts(rows: IngestRow[]): EndpointCount[] {
  const out = new Map<string, EndpointCount>();
  for (const { c } of rows) {
    const revision = releaseRevisionOf(c.policyRevision);
    if (revision === null || c.status === 'skipped') continue;
    const hour = hourOf(c.startedAt);
    const key = `${revision}\u0000${hour}`;
    let e = out.get(key);
    if (!e) out.set(key, (e = { revision, hour, ran: 0, failed: 0 }));
    e.ran++;
    if (c.status === 'failed' || c.status === 'timed_out') e.failed++;
  }
  return [...out.values()];
}

// The claimed revisions of the rows that are not among `served` (release numbers the endpoint was served), largest
// first; past MAX_UNSERVED_FINDINGS_PER_BATCH distinct ones, the rest are merged into one claim with revision null.
export function unservedClaims(rows: IngestRow[], served: ReadonlySet<number>): RevisionClaim[] {
  const byRevision = new Map<string, RevisionClaim>();
  for (const { c } of rows) {
    if (c.policyRevision === null) continue;
    const revision = releaseRevisionOf(c.policyRevision);
    if (revision !== null && served.has(revision)) continue;
    const e = byRevision.get(c.policyRevision);
    if (e) {
      e.count++;
      e.fromSeq = Math.min(e.fromSeq, c.seq);
      e.toSeq = Math.max(e.toSeq, c.seq);
    } else
      byRevision.set(c.policyRevision, {
        revision: c.policyRevision,
        count: 1,
        fromSeq: c.seq,
        toSeq: c.seq,
        revisions: 1,
      });
  }
  const claims = [...byRevision.values()].sort((a, b) => b.count - a.count || a.fromSeq - b.fromSeq);
  if (claims.length <= MAX_UNSERVED_FINDINGS_PER_BATCH) return claims;
  const kept = claims.slice(0, MAX_UNSERVED_FINDINGS_PER_BATCH - 1);
  const rest = claims.slice(MAX_UNSERVED_FINDINGS_PER_BATCH - 1);
  kept.push({
    revision: null,
    count: rest.reduce((n, c) => n + c.count, 0),
    fromSeq: Math.min(...rest.map((c) => c.fromSeq)),
    toSeq: Math.max(...rest.map((c) => c.toSeq)),
    revisions: rest.length,
  });
  return kept;
}
