// When a release impact preview needs an acknowledgement, and what the 428 says: pure rules over the preview.

/** The parts of a release preview the acknowledgement rule reads. */
export interface AckInput {
  suppressed: { total: number; endpoints: number };
  hooksTurnedOff: readonly unknown[];
  endpoints: { unknown: number };
  unknownImpact: ReadonlyArray<{ hostname: string }>;
}

export interface AckDecision {
  /** The version can suppress hooks or turn them off, and some endpoints have no current inventory. */
  impactUnknown: boolean;
  requiresAck: boolean;
}

// A count and a noun, singular when it is one.
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// Needs an acknowledgement: more suppressed hooks than the threshold, hooks turned off anywhere, or — for a version
// that can suppress or turn off hooks — endpoints whose impact is unknown (no or a stale inventory): unknown is not
// "nothing happens".
export function ackDecision(p: AckInput, canSuppress: boolean, threshold: number): AckDecision {
  const impactUnknown = canSuppress && p.endpoints.unknown > 0;
  return { impactUnknown, requiresAck: p.suppressed.total > threshold || p.hooksTurnedOff.length > 0 || impactUnknown };
}

// The 428 message: what the release does (suppresses, turns off, unknown where; hostnames named), and what to send.
export function ackRequiredMessage(
  p: AckInput & { digest: string },
  decision: AckDecision,
  groupId: string,
  policyVersionId: string,
): string {
  const what: string[] = [];
  if (p.suppressed.total > 0 || !decision.impactUnknown)
    what.push(`suppresses ${plural(p.suppressed.total, 'hook')} on ${plural(p.suppressed.endpoints, 'endpoint')}`);
  if (p.hooksTurnedOff.length > 0) what.push(`turns hooks off on ${plural(p.hooksTurnedOff.length, 'endpoint')}`);
  if (decision.impactUnknown) {
    const names = p.unknownImpact.slice(0, 5).map((u) => u.hostname);
    const more = p.unknownImpact.length > names.length ? `, and ${p.unknownImpact.length - names.length} more` : '';
    what.push(
      `has an unknown impact on ${plural(p.endpoints.unknown, 'endpoint')} without a current inventory ` +
        `(${names.join(', ')}${more})`,
    );
  }
  return (
    `This release ${what.join(' and ')}: review GET /v1/groups/${groupId}/release-preview?policyVersionId=` +
    `${policyVersionId} and pass previewAck "${p.digest}"`
  );
}
