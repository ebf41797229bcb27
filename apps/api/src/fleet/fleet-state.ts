// The fleet state of an endpoint (what the console counts and filters by) and the endpoints list's sort columns, as
// pure rules and the one SQL expression of each, so counts, filters and sorts agree everywhere.

/** An endpoint not heard from for this long counts as stale. */
export const STALE_AFTER_MS = 24 * 3600 * 1000;

export const FLEET_STATES = [
  'applied',
  'failed',
  'drifted',
  'stale',
  'never checked in',
  'pending',
  'pending approval',
  'revoked',
  'rejected',
  'retired',
] as const;
export type FleetState = (typeof FLEET_STATES)[number];

/** The columns the fleet state derives from. */
export interface FleetStateInput {
  admission: string;
  revokedAt: Date | null;
  lastSeenAt: Date | null;
  state: string;
}

// The fleet state: rejected or retired (final), revoked, pending approval (a duplicate machine id), never checked in,
// stale (silent longer than STALE_AFTER_MS), else its reported state (applied, failed, drifted; anything else pending).
export function fleetStateOf(e: FleetStateInput, now: number): FleetState {
  if (e.admission === 'rejected' || e.admission === 'retired') return e.admission;
  if (e.revokedAt) return 'revoked';
  if (e.admission === 'pending') return 'pending approval';
  if (!e.lastSeenAt) return 'never checked in';
  if (now - e.lastSeenAt.getTime() > STALE_AFTER_MS) return 'stale';
  if (e.state === 'applied' || e.state === 'failed' || e.state === 'drifted') return e.state;
  return 'pending';
}

// Whether an endpoint is a live member of its group's fleet (what group counts cover): admitted and not revoked.
export function inFleetOf(e: Pick<FleetStateInput, 'admission' | 'revokedAt'>): boolean {
  return e.admission === 'active' && !e.revokedAt;
}

/** The fleet states of endpoints outside the fleet (not admitted, or revoked); every other state is a member's. */
export const OUTSIDE_FLEET_STATES: readonly FleetState[] = ['pending approval', 'revoked', 'rejected', 'retired'];

/** The same rule in SQL over `endpoints` aliased `e`. */
export const IN_FLEET_SQL = `(e.admission = 'active' AND e.revoked_at IS NULL)`;

// The same rule in SQL over `endpoints` aliased `e`, `staleBefore` the placeholder of the stale cut-off time.
export function fleetStateSql(staleBefore: string): string {
  return `(CASE WHEN e.admission IN ('rejected', 'retired') THEN e.admission
    WHEN e.revoked_at IS NOT NULL THEN 'revoked'
    WHEN e.admission = 'pending' THEN 'pending approval'
    WHEN e.last_seen_at IS NULL THEN 'never checked in'
    WHEN e.last_seen_at < ${staleBefore} THEN 'stale'
    WHEN e.state IN ('applied', 'failed', 'drifted') THEN e.state
    ELSE 'pending' END)`;
}

/** The sort columns of the fleet-wide endpoints list: SQL expression over `e` (endpoints), `g` (groups), `f` (open
 *  findings); `STATE` stands for the fleet-state expression; text in byte order so keyset positions compare exactly. */
export const SORT_COLUMNS = {
  hostname: { sql: 'e.hostname COLLATE "C"', type: 'text' },
  group: { sql: 'g.name COLLATE "C"', type: 'text' },
  platform: { sql: 'e.platform COLLATE "C"', type: 'text' },
  agentVersion: { sql: 'e.agent_version COLLATE "C"', type: 'text' },
  appliedRevision: { sql: 'COALESCE(e.applied_revision, -1)', type: 'int' },
  state: { sql: '(STATE) COLLATE "C"', type: 'text' },
  lastSeenAt: { sql: "COALESCE(e.last_seen_at, '-infinity'::timestamptz)", type: 'timestamptz' },
  openFindings: { sql: 'COALESCE(f.open, 0)', type: 'int' },
  enrolledAt: { sql: 'e.enrolled_at', type: 'timestamptz' },
} as const satisfies Record<string, { sql: string; type: 'text' | 'int' | 'timestamptz' }>;
export type SortColumn = keyof typeof SORT_COLUMNS;
export const SORT_COLUMN_NAMES = Object.keys(SORT_COLUMNS) as [SortColumn, ...SortColumn[]];
