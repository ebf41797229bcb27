// Binding a bundle to this endpoint: only bundles of the group its newest signed assignment names, never older than
// what it already applied in that group (per-group floors: revisions count per group, so a move resets nothing).
import { type AssignmentStatement, BundleRejected, parseAssignment, type VerifiedBundle } from '@hookwarden/hook-core';
import type { Credentials } from '../state/credentials';

/** The assignment an agent acts on. Epoch 0: enrolled before assignments were signed (the enrollment's group). */
export interface Assignment {
  groupId: string;
  epoch: number;
  minRevision: number | null;
}

/** What the disk holds now (the layer's group, revision and digest). */
export interface DiskBundle {
  groupId: string;
  revision: number;
  digest: string;
}

// The assignment kept in the credentials (verified when adopted), or the enrollment's group at epoch 0.
export function currentAssignment(creds: Credentials): Assignment {
  if (creds.assignment) {
    try {
      const s = parseAssignment(creds.assignment.statement);
      if (s.endpointId === creds.endpointId) return { groupId: s.groupId, epoch: s.epoch, minRevision: s.minRevision };
    } catch {
      // an unreadable statement: fall back to the enrollment's group
    }
  }
  return { groupId: creds.groupId, epoch: 0, minRevision: null };
}

/** Whether a newer statement is adopted: a move (adopt), the same assignment again (same), or refused (why). */
export type AssignmentDecision = { kind: 'adopt' } | { kind: 'same' } | { kind: 'refuse'; reason: string };

// Decides whether a verified assignment statement replaces the current one; returns why not when it does not.
export function assignmentDecision(
  current: Assignment,
  next: AssignmentStatement,
  endpointId: string,
  now: number,
  maxAgeMs: number,
): AssignmentDecision {
  if (next.endpointId !== endpointId)
    return { kind: 'refuse', reason: `assignment is for endpoint ${next.endpointId}, not this one (${endpointId})` };
  const issued = Date.parse(next.issuedAt);
  if (now - issued > maxAgeMs) {
    return {
      kind: 'refuse',
      reason: `assignment issued at ${next.issuedAt} is older than ${Math.round(maxAgeMs / 1000)} s (stale, replayed?)`,
    };
  }
  if (next.epoch < current.epoch) {
    return {
      kind: 'refuse',
      reason: `assignment epoch ${next.epoch} is older than the held epoch ${current.epoch} (replay)`,
    };
  }
  if (next.epoch === current.epoch) {
    return next.groupId === current.groupId
      ? { kind: 'same' }
      : {
          kind: 'refuse',
          reason: `assignment epoch ${next.epoch} names group ${next.groupId}, but that epoch is held for group ${current.groupId}`,
        };
  }
  return { kind: 'adopt' };
}

// The replay floor of a group: the highest revision applied in it, the disk's when it holds that group, and the
// assignment's minRevision when it is the assigned group.
export function floorOf(
  groupId: string,
  floors: Record<string, number>,
  disk: DiskBundle | null,
  assignment: Assignment,
): number | null {
  const candidates = [floors[groupId] ?? null, disk?.groupId === groupId ? disk.revision : null];
  if (assignment.groupId === groupId) candidates.push(assignment.minRevision);
  const known = candidates.filter((c): c is number => c !== null);
  return known.length > 0 ? Math.max(...known) : null;
}

/** A bundle of another group than the assigned one: refused now, but tried again (the assignment may still arrive). */
export class ForeignBundle extends BundleRejected {
  constructor(message: string, revision: number | null) {
    super(message, revision);
    this.name = 'ForeignBundle';
  }
}

// Refuses a bundle of another group than the assigned one, or one older than the group's floor (replay), or the
// applied revision with other content.
export function checkBinding(
  v: VerifiedBundle,
  assignment: Assignment,
  floors: Record<string, number>,
  disk: DiskBundle | null,
): void {
  const group = v.manifest.group;
  if (group.id !== assignment.groupId) {
    throw new ForeignBundle(
      `manifest: bundle of group ${group.name} (${group.id}), but this endpoint is assigned to group ` +
        `${assignment.groupId} (assignment epoch ${assignment.epoch}): not for this endpoint`,
      v.revision,
    );
  }
  const floor = floorOf(group.id, floors, disk, assignment);
  if (floor !== null && v.revision < floor) {
    throw new BundleRejected(
      `manifest: revision ${v.revision} is older than the applied revision ${floor} of this group (replay)`,
      v.revision,
    );
  }
  if (disk && disk.groupId === group.id && disk.revision === v.revision && disk.digest !== v.digest) {
    throw new BundleRejected(`manifest: revision ${v.revision} is already applied with different content`, v.revision);
  }
}
