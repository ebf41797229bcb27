// The enrollment decision, a pure function: a machine id is a hint, never a credential. Only the proof of an
// endpoint's current key re-enrolls it (re-key); a known machine id without that proof makes a pending duplicate an
// admin decides on; a revoked endpoint never comes back by enrollment.

/** An endpoint as the decision needs it. */
export interface KnownEndpoint {
  id: string;
  groupId: string;
  machineId: string;
  admission: 'active' | 'pending' | 'rejected' | 'retired';
  revoked: boolean;
}

export interface EnrollFacts {
  /** The group of the enrollment secret presented. */
  secretGroupId: string;
  /** The endpoint `previous.endpointId` names, when its proof verifies under that endpoint's current key. */
  proven: KnownEndpoint | null;
  /** The newest endpoint holding this machine id, preferring the admitted one (null: the machine id is new). */
  holder: KnownEndpoint | null;
}

/** Why a known machine id made a pending duplicate (finding details). */
export type DuplicateReason = 'no_proof' | 'revoked';

export type EnrollDecision =
  | { kind: 'create' }
  | { kind: 'rekey'; endpoint: KnownEndpoint }
  | { kind: 'pending'; duplicateOf: KnownEndpoint; reason: DuplicateReason }
  | { kind: 'refuse'; code: 'endpoint_revoked' | 'conflict'; message: string };

// Decides what an enrollment does.
export function enrollDecision(facts: EnrollFacts): EnrollDecision {
  const p = facts.proven;
  if (p) {
    if (p.revoked || p.admission === 'rejected' || p.admission === 'retired') {
      const state = p.revoked ? 'revoked' : p.admission;
      return {
        kind: 'refuse',
        code: 'endpoint_revoked',
        message: `Endpoint ${p.id} is ${state}: it comes back only by an admin's re-admission, never by enrollment`,
      };
    }
    if (p.groupId !== facts.secretGroupId) {
      return {
        kind: 'refuse',
        code: 'conflict',
        message:
          `Endpoint ${p.id} belongs to group ${p.groupId}, and this enrollment secret to group ${facts.secretGroupId}: ` +
          'an endpoint never moves itself between groups (an admin moves it with POST /v1/endpoints/:id/move)',
      };
    }
    return { kind: 'rekey', endpoint: p };
  }
  const h = facts.holder;
  if (!h) return { kind: 'create' };
  return { kind: 'pending', duplicateOf: h, reason: h.revoked ? 'revoked' : 'no_proof' };
}
