// Enrollment decisions (admission) of endpoints: the states, the admin's transitions between them, and the
// "duplicate machine id" finding an enrollment without proof of the known endpoint's key leaves (pure, unit-tested).

/** active: admitted; pending: a duplicate machine id awaiting an admin; rejected and retired are final. */
export const ADMISSIONS = ['active', 'pending', 'rejected', 'retired'] as const;
export type Admission = (typeof ADMISSIONS)[number];

/** The finding kind (hook_run_findings.kind) recorded for a pending duplicate, on the pending endpoint. */
export const DUPLICATE_MACHINE_ID = 'duplicate_machine_id';

/** The details of a DUPLICATE_MACHINE_ID finding: what the new enrollment claimed, and whom it duplicates. */
export interface DuplicateMachineIdDetails {
  machineId: string;
  /** The endpoint that already held the machine id. */
  duplicateOf: string;
  /** Hostname and platform the new (pending) enrollment sent. */
  hostname: string;
  platform: string;
}

export type AdmissionAction = 'approve' | 'reject' | 'readmit';

/** What an admin action needs and what it leads to. */
interface Transition {
  /** The admission it starts from. */
  from: Admission;
  /** Whether the endpoint must be revoked (true), must not be (false), or either (null). */
  revoked: boolean | null;
  /** The admission it ends in. */
  to: Admission;
  /** What the 409 says when the endpoint is not in the `from` state. */
  refusal: string;
}

export const TRANSITIONS = {
  approve: {
    from: 'pending',
    revoked: false,
    to: 'active',
    refusal: 'only a pending endpoint (a duplicate machine id awaiting a decision) can be approved',
  },
  reject: {
    from: 'pending',
    revoked: null,
    to: 'rejected',
    refusal: 'only a pending endpoint (a duplicate machine id awaiting a decision) can be rejected',
  },
  readmit: {
    from: 'active',
    revoked: true,
    to: 'active',
    refusal: 'only a revoked endpoint that was admitted can be re-admitted',
  },
} as const satisfies Record<AdmissionAction, Transition>;

/** The part of an endpoint a decision looks at. */
export interface AdmissionState {
  admission: string;
  revokedAt: Date | null;
}

// Why an action is refused for an endpoint in this state (the 409's message), or null when it is allowed.
export function admissionRefusal(action: AdmissionAction, id: string, e: AdmissionState): string | null {
  const t: Transition = TRANSITIONS[action];
  const revoked = e.revokedAt !== null;
  const now = revoked && e.admission === 'active' ? 'revoked' : e.admission;
  if (e.admission !== t.from) return `Endpoint ${id} is ${now}: ${t.refusal}`;
  if (t.revoked === true && !revoked) return `Endpoint ${id} is not revoked: ${t.refusal}`;
  if (t.revoked === false && revoked) return `Endpoint ${id} is revoked: revoked endpoints cannot be approved`;
  return null;
}
