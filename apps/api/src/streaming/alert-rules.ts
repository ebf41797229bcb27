// Alert episodes as pure functions: what each rule kind observes firing, and the difference between the subjects
// firing now and the open episodes (fire once per episode, resolve once when it clears).
import type { AlertParams } from './streaming.dto';

/** One subject a rule observes firing now. */
export interface Firing {
  subject: string;
  summary: string;
  details: Record<string, unknown>;
}

/** Defaults of the rule parameters (each kind reads the ones it documents). */
export const ALERT_DEFAULTS = { windowSec: 300, maxDenials: 50, hours: 24, maxAgeDays: 80 } as const;
export type ResolvedParams = AlertParams & { [K in keyof typeof ALERT_DEFAULTS]: number };

/** The chain findings that count as gaps in an endpoint's record chain. */
export const CHAIN_GAP_KINDS = ['missing_range', 'broken_link', 'dropped'] as const;

// The parameters of a rule with the defaults filled in.
export function withDefaults(params: AlertParams): ResolvedParams {
  return { ...ALERT_DEFAULTS, ...params };
}

// The episodes to open (subjects firing without an open episode) and to resolve (open episodes no longer firing).
export function reconcile(
  firing: readonly Firing[],
  open: ReadonlyArray<{ id: string; subject: string }>,
): { fire: Firing[]; resolve: string[] } {
  const openSubjects = new Set(open.map((o) => o.subject));
  const now = new Set(firing.map((f) => f.subject));
  return {
    fire: firing.filter((f) => !openSubjects.has(f.subject)),
    resolve: open.filter((o) => !now.has(o.subject)).map((o) => o.id),
  };
}

// The denial-rate firing of one group (or the fleet) from its count in the window.
export function denialFiring(count: number, p: { windowSec: number; maxDenials: number }, groupId?: string): Firing[] {
  if (count <= p.maxDenials) return [];
  return [
    {
      subject: groupId ?? 'fleet',
      summary: `${count} denials in the last ${p.windowSec} s (more than ${p.maxDenials})`,
      details: { count, windowSec: p.windowSec, maxDenials: p.maxDenials, groupId: groupId ?? null },
    },
  ];
}
