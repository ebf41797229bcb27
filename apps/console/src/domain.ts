// Pure rules of the console (no DOM, no network): ring counts, the enroll command. Unit-tested. An endpoint's fleet
// state and fleet membership are the API's (EndpointViewDto.fleetState/inFleet), never worked out here.
import { SCHEMA_ENUMS } from '@hookwarden/admin-client';
import type { Schemas } from './api/client';

type Rollout = Schemas['RolloutDto'];

/** Every fleet state, in the API's order (generated from the document). */
export const FLEET_STATES = SCHEMA_ENUMS['FleetPageDto.items.state'];
export type FleetState = (typeof FLEET_STATES)[number];

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
