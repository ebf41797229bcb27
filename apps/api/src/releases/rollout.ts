// Rollout arithmetic: ring buckets and which bundle an endpoint receives (pure, used on the hot path).
import { createHash } from 'node:crypto';

/** One release's bundle as served to agents (the body is pre-serialized). */
export interface ServedBundle {
  releaseId: string;
  revision: number;
  digest: string;
  /** The quoted ETag. */
  etag: string;
  body: Buffer;
}

/** What a group's endpoints receive: the current release (to the endpoints under `threshold`) or the previous one. */
export interface GroupBundleState {
  current: ServedBundle | null;
  previous: ServedBundle | null;
  /** Percent of buckets on the current release (100 once complete). */
  threshold: number;
  /** The live shadow release, offered beside it to the endpoints under its own threshold (null: none). */
  shadow?: { bundle: ServedBundle; threshold: number } | null;
}

export const DEFAULT_RINGS = [1, 5, 25, 100];

// Percent of buckets a release reaches now: its current ring's, 100 once completed.
export function thresholdOf(r: { status: string; rings: unknown; currentRing: number }): number {
  if (r.status === 'completed') return 100;
  return (r.rings as number[])[r.currentRing] ?? 100;
}

// The endpoint's fixed bucket in [0, 100) for a release.
export function bucketOf(endpointId: string, releaseId: string): number {
  const h = createHash('sha256').update(endpointId).update(':').update(releaseId).digest();
  return Math.floor((h.readUInt32BE(0) / 0x1_0000_0000) * 100);
}

// The index of the first ring that contains the bucket.
export function ringOf(bucket: number, rings: number[]): number {
  const i = rings.findIndex((pct) => bucket < pct);
  return i === -1 ? rings.length - 1 : i;
}

// The bundle an endpoint receives under a group state (null: nothing released for it yet).
export function bundleFor(state: GroupBundleState, endpointId: string): ServedBundle | null {
  const current = state.current;
  if (!current) return null;
  if (state.threshold >= 100) return current;
  return bucketOf(endpointId, current.releaseId) < state.threshold ? current : state.previous;
}

// The shadow bundle an endpoint receives (null: no shadow layer for it — no live shadow release, or its ring is not
// reached yet).
export function shadowBundleFor(state: GroupBundleState, endpointId: string): ServedBundle | null {
  const shadow = state.shadow;
  if (!shadow) return null;
  if (shadow.threshold >= 100) return shadow.bundle;
  return bucketOf(endpointId, shadow.bundle.releaseId) < shadow.threshold ? shadow.bundle : null;
}

/** The part of a release that decides which endpoints it was offered to. */
export interface OfferedRelease {
  id: string;
  status: string;
  rings: number[];
  currentRing: number;
}

// True when the release was offered to the endpoint (served to it by the bundle route): a completed release to the
// whole group, any other one to the endpoints whose bucket is under its current ring (rings only grow, so that covers
// every ring it reached before it was paused, aborted or superseded).
export function offeredTo(release: OfferedRelease, endpointId: string): boolean {
  if (release.status === 'completed') return true;
  const threshold = release.rings[release.currentRing] ?? 100;
  return threshold >= 100 || bucketOf(endpointId, release.id) < threshold;
}

/** What a status report says about revisions (the parts the served/applied record needs). */
export interface ReportedRevisions {
  state: 'applied' | 'failed' | 'drifted' | 'pending';
  appliedRevision: number | null;
  appliedDigest: string | null;
  targetRevision: number | null;
}

/** A release as the served/applied record checks a report against it. */
export interface ReportedRelease extends OfferedRelease {
  revision: number;
  digest: string;
}

/** One revision recorded as served to an endpoint (applied: it reported the release's layer on disk). */
export interface ServedRevision {
  revision: number;
  releaseId: string;
  applied: boolean;
}

// The revisions a report names that are not recorded yet (or not yet as applied), each with whether the report says
// it is applied: the one it is about (served, maybe refused) and the layer on disk (applied, kept when one failed).
export function reportedRevisions(s: ReportedRevisions, known: ReadonlyMap<number, boolean>): Map<number, boolean> {
  const claims = new Map<number, boolean>();
  if (s.targetRevision !== null) claims.set(s.targetRevision, false);
  if (s.appliedRevision !== null) claims.set(s.appliedRevision, true);
  for (const [revision, applied] of claims) {
    if (known.has(revision) && (known.get(revision) || !applied)) claims.delete(revision);
  }
  return claims;
}

// What a report proves was served to the endpoint: only revisions whose release the rollout offered it, applied only
// when the report names the release's digest (an endpoint cannot claim a revision into its evidence or a gate).
export function servedByReport(
  claims: ReadonlyMap<number, boolean>,
  appliedDigest: string | null,
  releases: ReportedRelease[],
  endpointId: string,
): ServedRevision[] {
  const out: ServedRevision[] = [];
  for (const [revision, applied] of claims) {
    const r = releases.find((x) => x.revision === revision);
    if (!r || !offeredTo(r, endpointId)) continue;
    out.push({ revision, releaseId: r.id, applied: applied && appliedDigest === r.digest });
  }
  return out;
}
