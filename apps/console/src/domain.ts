// Pure rules of the console (no DOM, no network): fleet states, ring counts, the enroll command. Unit-tested.
import { SCHEMA_ENUMS } from '@hookwarden/admin-client';
import type { Schemas } from './api/client';

type EndpointItem = Schemas['EndpointPageDto']['items'][number];
type Endpoint = Pick<EndpointItem, 'state' | 'lastSeenAt'> & Partial<Pick<EndpointItem, 'admission'>>;
type Rollout = Schemas['RolloutDto'];

/** An endpoint not heard from for this long counts as stale. */
export const STALE_AFTER_MS = 24 * 3600 * 1000;

/** Every fleet state, in the API's order (generated from the document). */
export const FLEET_STATES = SCHEMA_ENUMS['FleetPageDto.items.state'];
export type FleetState = (typeof FLEET_STATES)[number];

/** States of endpoints that are not live members of the fleet (shown only when some endpoint is in one). */
export const OUTSIDE_FLEET: readonly FleetState[] = ['pending approval', 'revoked', 'rejected', 'retired'];

// The overview state of an endpoint: rejected or retired (final), revoked, pending approval (a duplicate machine id),
// never checked in, stale (silent > 24 h), else its reported state.
export function fleetState(e: Endpoint, now = Date.now()): FleetState {
  if (e.admission === 'rejected' || e.admission === 'retired') return e.admission;
  if (e.state === 'revoked') return 'revoked';
  if (e.admission === 'pending') return 'pending approval';
  if (!e.lastSeenAt) return 'never checked in';
  if (now - new Date(e.lastSeenAt).getTime() > STALE_AFTER_MS) return 'stale';
  if (e.state === 'applied' || e.state === 'failed' || e.state === 'drifted') return e.state;
  return 'pending';
}

// True when an endpoint is a live member of its group's fleet (admitted and not revoked).
export function inFleet(e: Endpoint): boolean {
  return (e.admission ?? 'active') === 'active' && e.state !== 'revoked';
}

// The counts of the rollout's own revision in a ring (other revisions still served there are left out).
export function ringCounts(rollout: Rollout, ring: Rollout['rings'][number]) {
  const mine = ring.versions.find((v) => v.releaseId === rollout.release.id || v.revision === rollout.release.revision);
  const others = ring.versions.filter((v) => v !== mine).reduce((n, v) => n + v.assigned, 0);
  return {
    assigned: mine?.assigned ?? 0,
    applied: mine?.applied ?? 0,
    failed: mine?.failed ?? 0,
    stale: mine?.stale ?? 0,
    others,
  };
}

// The command an endpoint runs to enroll with a secret against this server.
export function enrollCommand(secret: string, server: string): string {
  return `hookwarden-agent enroll --server ${server} --secret ${secret}`;
}
