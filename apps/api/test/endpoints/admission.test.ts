// The admission rules: which admin decision is allowed in which state, and what its refusal says.
import { describe, expect, it } from 'vitest';
import { type AdmissionAction, admissionRefusal } from '../../src/endpoints/admission';

const ID = '3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b';
const at = new Date('2026-12-01T00:00:00Z');
const states = {
  active: { admission: 'active', revokedAt: null },
  revoked: { admission: 'active', revokedAt: at },
  pending: { admission: 'pending', revokedAt: null },
  pendingRevoked: { admission: 'pending', revokedAt: at },
  rejected: { admission: 'rejected', revokedAt: null },
  retired: { admission: 'retired', revokedAt: null },
  retiredRevoked: { admission: 'retired', revokedAt: at },
} as const;
type State = keyof typeof states;

describe('admissionRefusal', () => {
  const allowed: Record<AdmissionAction, State[]> = {
    approve: ['pending'],
    reject: ['pending', 'pendingRevoked'],
    readmit: ['revoked'],
  };
  for (const action of ['approve', 'reject', 'readmit'] as const) {
    for (const state of Object.keys(states) as State[]) {
      const ok = allowed[action].includes(state);
      it(`${action} on ${state}: ${ok ? 'allowed' : 'refused'}`, () => {
        const r = admissionRefusal(action, ID, states[state]);
        if (ok) expect(r).toBeNull();
        else expect(r).toMatch(new RegExp(`^Endpoint ${ID} is `));
      });
    }
  }

  it('names the state the endpoint is in', () => {
    expect(admissionRefusal('approve', ID, states.active)).toContain('is active: only a pending endpoint');
    expect(admissionRefusal('approve', ID, states.revoked)).toContain('is revoked: only a pending endpoint');
    expect(admissionRefusal('approve', ID, states.pendingRevoked)).toContain('revoked endpoints cannot be approved');
    expect(admissionRefusal('readmit', ID, states.active)).toContain('is not revoked');
    expect(admissionRefusal('readmit', ID, states.retiredRevoked)).toContain('is retired');
    expect(admissionRefusal('reject', ID, states.rejected)).toContain('is rejected');
  });
});
