// Fleet-wide reads on the read pool: the endpoints list, counts by state and group, what needs attention.
import { Injectable } from '@nestjs/common';
import { PgPools } from '../database/pg-pools';
import {
  type FleetKey,
  fleetCountQuery,
  fleetPageQuery,
  type FleetRow,
  fleetStateListQuery,
  fleetStatesQuery,
} from './fleet.sql';
import type { FleetFilters } from './fleet.dto';
import type { SortColumn } from './fleet-state';

/** One endpoint named in the attention summary. */
export interface NamedEndpointRow {
  id: string;
  hostname: string;
  group_id: string;
  group_name: string;
  last_seen_at: Date | null;
  total: number;
}

/** A release still rolling or paused, with its group and policy. */
export interface RolloutRow {
  id: string;
  group_id: string;
  group_name: string;
  policy_id: string;
  policy_name: string;
  policy_version: number;
  revision: number;
  status: 'rolling' | 'paused';
  paused_reason: string | null;
  current_ring: number;
  rings: unknown;
  created_at: Date;
}

/** Most groups the summary lists. */
export const MAX_SUMMARY_GROUPS = 1000;

@Injectable()
export class FleetRepository {
  constructor(private readonly pools: PgPools) {}

  // One page of the list (limit rows after the keyset position) and the count of every matching row.
  async page(
    f: FleetFilters,
    sort: SortColumn,
    order: 'asc' | 'desc',
    after: FleetKey | undefined,
    limit: number,
    now: number,
  ): Promise<{ rows: FleetRow[]; total: number }> {
    const page = fleetPageQuery(f, sort, order, after, limit, now);
    const count = fleetCountQuery(f, now);
    const [rows, total] = await Promise.all([
      this.pools.read.query<FleetRow>(page.text, page.values),
      this.pools.read.query<{ n: number }>(count.text, count.values),
    ]);
    return { rows: rows.rows, total: total.rows[0]?.n ?? 0 };
  }

  // How many endpoints are in each fleet state.
  async states(now: number): Promise<Map<string, number>> {
    const q = fleetStatesQuery(now);
    const res = await this.pools.read.query<{ state: string; n: number }>(q.text, q.values);
    return new Map(res.rows.map((r) => [r.state, r.n]));
  }

  // Every group (by name, at most MAX_SUMMARY_GROUPS) with its admitted, unrevoked endpoints by applied version.
  async groupVersions(): Promise<Array<{ id: string; name: string; version: number | null; n: number }>> {
    const res = await this.pools.read.query<{ id: string; name: string; version: number | null; n: number }>(
      `WITH gs AS (SELECT id, name FROM groups ORDER BY name COLLATE "C", id LIMIT ${MAX_SUMMARY_GROUPS})
       SELECT gs.id, gs.name, pv.number AS version, count(e.id)::int AS n
         FROM gs
         LEFT JOIN endpoints e ON e.group_id = gs.id AND e.admission = 'active' AND e.revoked_at IS NULL
         LEFT JOIN releases r ON r.id = e.applied_release_id
         LEFT JOIN policy_versions pv ON pv.id = r.policy_version_id
        GROUP BY gs.id, gs.name, pv.number
        ORDER BY gs.name COLLATE "C", gs.id, pv.number NULLS FIRST`,
    );
    return res.rows;
  }

  // The first `limit` endpoints (by hostname) in a fleet state; each row carries the state's total.
  async inState(state: string, now: number, limit: number): Promise<NamedEndpointRow[]> {
    const q = fleetStateListQuery(state, now, limit);
    return (await this.pools.read.query<NamedEndpointRow>(q.text, q.values)).rows;
  }

  // Releases still rolling or paused (paused first, then newest), with group and policy (at most 100).
  async activeRollouts(): Promise<RolloutRow[]> {
    const res = await this.pools.read.query<RolloutRow>(
      `SELECT r.id, r.group_id, g.name AS group_name, p.id AS policy_id, p.name AS policy_name,
              pv.number AS policy_version, r.revision, r.status, r.paused_reason, r.current_ring, r.rings, r.created_at
         FROM releases r
         JOIN groups g ON g.id = r.group_id
         JOIN policy_versions pv ON pv.id = r.policy_version_id
         JOIN policies p ON p.id = pv.policy_id
        WHERE r.status IN ('rolling', 'paused')
        ORDER BY (r.status = 'paused') DESC, r.created_at DESC, r.id
        LIMIT 100`,
    );
    return res.rows;
  }

  // Open findings by kind.
  async openFindings(): Promise<Array<{ kind: string; n: number }>> {
    const res = await this.pools.read.query<{ kind: string; n: number }>(
      `SELECT kind, count(*)::int AS n FROM hook_run_findings WHERE resolved_at IS NULL GROUP BY kind ORDER BY 2 DESC, 1`,
    );
    return res.rows;
  }
}
