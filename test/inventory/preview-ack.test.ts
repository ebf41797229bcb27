// The acknowledgement rule of a release impact preview (pure): thresholds, hooks turned off, and unknown impact.
import { describe, expect, it } from 'vitest';
import { ackDecision, ackRequiredMessage } from '../../apps/api/src/inventory/preview-ack';

const preview = (o: { suppressed?: number; endpoints?: number; off?: number; unknown?: string[] }) => ({
  suppressed: { total: o.suppressed ?? 0, endpoints: o.endpoints ?? 0 },
  hooksTurnedOff: Array.from({ length: o.off ?? 0 }, () => ({})),
  endpoints: { unknown: (o.unknown ?? []).length },
  unknownImpact: (o.unknown ?? []).map((hostname) => ({ hostname })),
  digest: 'sha256:d',
});

describe('ackDecision', () => {
  it('needs an acknowledgement past the threshold, for hooks turned off, and for unknown impact', () => {
    expect(ackDecision(preview({ suppressed: 1, endpoints: 1 }), true, 0)).toEqual({
      impactUnknown: false,
      requiresAck: true,
    });
    expect(ackDecision(preview({ suppressed: 1, endpoints: 1 }), true, 1).requiresAck).toBe(false);
    expect(ackDecision(preview({ off: 1 }), true, 10).requiresAck).toBe(true);
    expect(ackDecision(preview({ unknown: ['a'] }), true, 10)).toEqual({ impactUnknown: true, requiresAck: true });
    // A version that cannot suppress anything: unknown endpoints change nothing.
    expect(ackDecision(preview({ unknown: ['a'] }), false, 0)).toEqual({ impactUnknown: false, requiresAck: false });
  });
});

describe('ackRequiredMessage', () => {
  it('names the unknown endpoints (the first five) instead of claiming nothing is suppressed', () => {
    const p = preview({ unknown: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] });
    const msg = ackRequiredMessage(p, ackDecision(p, true, 0), 'G', 'V');
    expect(msg).toBe(
      'This release has an unknown impact on 7 endpoints without a current inventory (a, b, c, d, e, and 2 more): ' +
        'review GET /v1/groups/G/release-preview?policyVersionId=V and pass previewAck "sha256:d"',
    );
    const both = preview({ suppressed: 3, endpoints: 1, off: 1, unknown: ['x'] });
    expect(ackRequiredMessage(both, ackDecision(both, true, 0), 'G', 'V')).toMatch(
      /^This release suppresses 3 hooks on 1 endpoint and turns hooks off on 1 endpoint and has an unknown impact on 1 endpoint without a current inventory \(x\): /,
    );
  });
});
