// SQL of the fleet-wide endpoints list: filters, the sort column and its keyset position, as one parameterised query.
import { containsPattern, SqlParams } from '../hook-runs/hook-runs.sql';
import type { FleetFilters } from './fleet.dto';
import { fleetStateSql, IN_FLEET_SQL, SORT_COLUMNS, type SortColumn, STALE_AFTER_MS } from './fleet-state';

/** A keyset position: the sort value of the last row shown (as PostgreSQL prints it) and its id. */
export interface FleetKey {
  v: string;
  id: string;
}

/** One row of the list as the query returns it. */
export interface FleetRow {
  id: string;
  hostname: string;
  group_id: string;
  group_name: string;
  platform: string;
  agent_version: string;
  applied_revision: number | null;
  applied_policy_version: number | null;
  target_revision: number | null;
  fleet_state: string;
  state: string;
  admission: string;
  last_seen_at: Date | null;
  enrolled_at: Date;
  open_findings: number;
  sort_key: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** FROM and joins every fleet query shares: groups, the applied release's policy version, open findings. */
const FROM = `FROM endpoints e
  JOIN groups g ON g.id = e.group_id
  LEFT JOIN releases r ON r.id = e.applied_release_id
  LEFT JOIN policy_versions pv ON pv.id = r.policy_version_id
  LEFT JOIN (SELECT endpoint_id, count(*)::int AS open FROM hook_run_findings WHERE resolved_at IS NULL
              GROUP BY endpoint_id) f ON f.endpoint_id = e.id`;

// The WHERE conditions of a filter set (`state` gives the fleet-state expression, binding its cut-off when first used).
function conditions(f: FleetFilters, p: SqlParams, state: () => string): string[] {
  const w: string[] = [];
  if (f.q !== undefined) {
    const like = `e.hostname ILIKE ${p.bind(containsPattern(f.q))} ESCAPE '\\'`;
    w.push(UUID.test(f.q) ? `(${like} OR e.id = ${p.bind(f.q, 'uuid')})` : like);
  }
  if (f.groupId) w.push(`e.group_id = ANY(${p.bind(f.groupId, 'uuid')})`);
  if (f.state) w.push(`${state()} = ANY(${p.bind(f.state)})`);
  if (f.platform) w.push(`e.platform = ANY(${p.bind(f.platform)})`);
  if (f.agentVersion) w.push(`e.agent_version = ANY(${p.bind(f.agentVersion)})`);
  if (f.admission) w.push(`e.admission = ANY(${p.bind(f.admission)})`);
  if (f.appliedRevision !== undefined) w.push(`e.applied_revision = ${p.bind(f.appliedRevision, 'int')}`);
  if (f.appliedVersion === 'none') w.push('pv.number IS NULL');
  else if (f.appliedVersion !== undefined) w.push(`pv.number = ${p.bind(f.appliedVersion, 'int')}`);
  if (f.inFleet === true) w.push(IN_FLEET_SQL);
  if (f.inFleet === false) w.push(`NOT ${IN_FLEET_SQL}`);
  if (f.hasFindings === true) w.push('f.open > 0');
  if (f.hasFindings === false) w.push('f.open IS NULL');
  if (f.seenAfter) w.push(`e.last_seen_at >= ${p.bind(f.seenAfter, 'timestamptz')}`);
  if (f.seenBefore) w.push(`(e.last_seen_at IS NULL OR e.last_seen_at < ${p.bind(f.seenBefore, 'timestamptz')})`);
  return w;
}

// The fleet-state expression, its stale cut-off (`now` − STALE_AFTER_MS) bound once, when first asked for.
function stateOf(p: SqlParams, now: number): () => string {
  let sql: string | undefined;
  return () => (sql ??= fleetStateSql(p.bind(new Date(now - STALE_AFTER_MS).toISOString(), 'timestamptz')));
}

// The query of one page: `limit` rows after the keyset position in the sort order (value, then id).
export function fleetPageQuery(
  f: FleetFilters,
  sort: SortColumn,
  order: 'asc' | 'desc',
  after: FleetKey | undefined,
  limit: number,
  now: number,
): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const state = stateOf(p, now)();
  const col = SORT_COLUMNS[sort];
  const key = col.sql.replace('STATE', state);
  const w = conditions(f, p, () => state);
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  if (after) {
    w.push(`(${key}, e.id) ${order === 'asc' ? '>' : '<'} (${p.bind(after.v, col.type)}, ${p.bind(after.id, 'uuid')})`);
  }
  const text = `SELECT e.id, e.hostname, e.group_id, g.name AS group_name, e.platform, e.agent_version,
      e.applied_revision, pv.number AS applied_policy_version, e.target_revision, ${state} AS fleet_state, e.state,
      e.admission, e.last_seen_at, e.enrolled_at, COALESCE(f.open, 0) AS open_findings, (${key})::text AS sort_key
    ${FROM}
    ${w.length ? `WHERE ${w.join(' AND ')}` : ''}
    ORDER BY ${key} ${dir}, e.id ${dir}
    LIMIT ${p.bind(limit, 'int')}`;
  return { text, values: p.values };
}

// The query counting every row the filters match.
export function fleetCountQuery(f: FleetFilters, now: number): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const w = conditions(f, p, stateOf(p, now));
  return { text: `SELECT count(*)::int AS n ${FROM} ${w.length ? `WHERE ${w.join(' AND ')}` : ''}`, values: p.values };
}

// Counts by fleet state, every endpoint.
export function fleetStatesQuery(now: number): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const state = stateOf(p, now)();
  return { text: `SELECT ${state} AS state, count(*)::int AS n FROM endpoints e GROUP BY 1`, values: p.values };
}

// The first endpoints (by hostname) in one fleet state, with how many there are.
export function fleetStateListQuery(fleetState: string, now: number, limit: number) {
  const p = new SqlParams();
  const state = stateOf(p, now)();
  const text = `SELECT e.id, e.hostname, e.group_id, g.name AS group_name, e.last_seen_at, count(*) OVER ()::int AS total
    FROM endpoints e JOIN groups g ON g.id = e.group_id
    WHERE ${state} = ${p.bind(fleetState)}
    ORDER BY e.hostname COLLATE "C", e.id LIMIT ${p.bind(limit, 'int')}`;
  return { text, values: p.values };
}
