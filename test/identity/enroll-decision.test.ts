// The enrollment decision (pure): only the proof of an endpoint's current key re-keys it; a known machine id without
// it makes a pending duplicate; revocation is final; an endpoint never moves itself.
import { describe, expect, it } from 'vitest';
import { enrollDecision, type KnownEndpoint } from '../../apps/api/src/enrollment/enroll-decision';

const ep = (o: Partial<KnownEndpoint> = {}): KnownEndpoint => ({
  id: 'e1',
  groupId: 'g1',
  machineId: 'm1',
  admission: 'active',
  revoked: false,
  ...o,
});

describe('enrollDecision', () => {
  it('creates an endpoint for a new machine id', () => {
    expect(enrollDecision({ secretGroupId: 'g1', proven: null, holder: null })).toEqual({ kind: 'create' });
  });

  it('re-keys only a proven endpoint of the same group', () => {
    expect(enrollDecision({ secretGroupId: 'g1', proven: ep(), holder: ep() })).toEqual({
      kind: 'rekey',
      endpoint: ep(),
    });
    const pending = ep({ admission: 'pending' });
    expect(enrollDecision({ secretGroupId: 'g1', proven: pending, holder: ep() }).kind).toBe('rekey');
    const moved = enrollDecision({ secretGroupId: 'g2', proven: ep(), holder: ep() });
    expect(moved).toMatchObject({ kind: 'refuse', code: 'conflict' });
    expect(moved.kind === 'refuse' && moved.message).toMatch(/never moves itself/);
  });

  it('refuses a proven endpoint that is revoked, rejected or retired', () => {
    for (const p of [ep({ revoked: true }), ep({ admission: 'rejected' }), ep({ admission: 'retired' })]) {
      const d = enrollDecision({ secretGroupId: 'g1', proven: p, holder: p });
      expect(d).toMatchObject({ kind: 'refuse', code: 'endpoint_revoked' });
      expect(d.kind === 'refuse' && d.message).toMatch(/only by an admin's re-admission/);
    }
  });

  it('makes a pending duplicate of a known machine id without proof, whatever the group or state', () => {
    expect(enrollDecision({ secretGroupId: 'g2', proven: null, holder: ep() })).toEqual({
      kind: 'pending',
      duplicateOf: ep(),
      reason: 'no_proof',
    });
    const revoked = ep({ revoked: true });
    expect(enrollDecision({ secretGroupId: 'g1', proven: null, holder: revoked })).toEqual({
      kind: 'pending',
      duplicateOf: revoked,
      reason: 'revoked',
    });
  });
});
