// Pure rules binding a bundle to the endpoint: assignment adoption (epoch forward only, fresh, this endpoint) and the
// group check with per-group replay floors.
import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_KIND, type AssignmentStatement, type VerifiedBundle } from '@hookwarden/hook-core';
import {
  type Assignment,
  assignmentDecision,
  checkBinding,
  currentAssignment,
  floorOf,
} from '../../apps/agent-sync/src/bundle/binding';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const DAY = 24 * 3600_000;
const held: Assignment = { groupId: 'A', epoch: 2, minRevision: null };

// An assignment statement with overrides.
function statement(over: Partial<AssignmentStatement> = {}): AssignmentStatement {
  return {
    kind: ASSIGNMENT_KIND,
    format: 1,
    endpointId: 'e1',
    groupId: 'B',
    epoch: 3,
    minRevision: null,
    issuedAt: new Date(NOW - 1000).toISOString(),
    ...over,
  };
}

// A verified bundle of a group and revision (only the fields the binding reads).
const bundle = (groupId: string, revision: number, digest = `d${revision}`): VerifiedBundle =>
  ({ manifest: { group: { id: groupId, name: `g-${groupId}` } }, revision, digest }) as unknown as VerifiedBundle;

describe('assignmentDecision', () => {
  it('adopts a newer epoch, keeps the same one, refuses older, foreign, stale and conflicting statements', () => {
    expect(assignmentDecision(held, statement(), 'e1', NOW, DAY)).toEqual({ kind: 'adopt' });
    expect(assignmentDecision(held, statement({ groupId: 'A', epoch: 2 }), 'e1', NOW, DAY)).toEqual({ kind: 'same' });
    expect(assignmentDecision(held, statement({ epoch: 1 }), 'e1', NOW, DAY)).toMatchObject({
      reason: expect.stringContaining('older than the held epoch 2 (replay)'),
    });
    expect(assignmentDecision(held, statement({ endpointId: 'e2' }), 'e1', NOW, DAY)).toMatchObject({
      reason: expect.stringContaining('for endpoint e2'),
    });
    expect(
      assignmentDecision(held, statement({ issuedAt: new Date(NOW - 2 * DAY).toISOString() }), 'e1', NOW, DAY),
    ).toMatchObject({ reason: expect.stringContaining('stale') });
    expect(assignmentDecision(held, statement({ epoch: 2 }), 'e1', NOW, DAY)).toMatchObject({ kind: 'refuse' });
  });
});

describe('checkBinding', () => {
  it("refuses another group's bundle whatever its revision", () => {
    expect(() => checkBinding(bundle('B', 99), held, {}, null)).toThrow(/group g-B \(B\).*not for this endpoint/);
  });

  it('refuses revisions below the group floor, and the applied revision with other content', () => {
    const floors = { A: 5 };
    expect(() => checkBinding(bundle('A', 4), held, floors, null)).toThrow(/older than the applied revision 5/);
    checkBinding(bundle('A', 5), held, floors, null);
    const disk = { groupId: 'A', revision: 6, digest: 'd6' };
    expect(() => checkBinding(bundle('A', 6, 'other'), held, floors, disk)).toThrow(/already applied/);
    checkBinding(bundle('A', 6), held, floors, disk);
  });

  it("does not hold a group's revisions against another group's (a move to a group with lower revisions)", () => {
    const moved: Assignment = { groupId: 'B', epoch: 3, minRevision: 1 };
    checkBinding(bundle('B', 1), moved, { A: 40 }, { groupId: 'A', revision: 40, digest: 'x' });
    expect(floorOf('B', { B: 2 }, null, moved)).toBe(2);
    expect(floorOf('B', {}, null, { ...moved, minRevision: 7 })).toBe(7);
    expect(floorOf('C', {}, null, moved)).toBeNull();
  });
});

describe('currentAssignment', () => {
  it('falls back to the enrollment group at epoch 0 without a statement', () => {
    const creds = {
      serverUrl: 'http://x',
      endpointId: 'e1',
      groupId: 'A',
      credential: 'c',
      machineId: 'm-12345678',
      publicKeys: [{ kid: 'k', publicKeyPem: 'p' }],
      enrolledAt: new Date().toISOString(),
    };
    expect(currentAssignment(creds)).toEqual({ groupId: 'A', epoch: 0, minRevision: null });
  });
});
