// Fleet state read from PostgreSQL when /metrics is scraped: endpoints, releases and open findings.
import { Injectable } from '@nestjs/common';
import { PgPools } from '../database/pg-pools';

export interface EndpointStateCount {
  state: string;
  count: number;
}
export interface RevisionCount {
  groupId: string;
  revision: string;
  count: number;
}
export interface ReleaseStatusCount {
  status: string;
  gatePaused: boolean;
  count: number;
}
export interface AdmissionCount {
  admission: string;
  count: number;
}
export interface FindingCount {
  kind: string;
  count: number;
}

@Injectable()
export class MetricsRepository {
  constructor(private readonly pools: PgPools) {}

  // Admitted endpoints by state (revoked ones as `revoked`) and how many were not seen within `staleSec`; pending,
  // rejected and retired endpoints are not part of the fleet (see admissions()).
  async endpointStates(staleSec: number): Promise<{ states: EndpointStateCount[]; stale: number }> {
    const states = await this.pools.read.query<EndpointStateCount>(
      `SELECT CASE WHEN revoked_at IS NULL THEN state ELSE 'revoked' END AS state, count(*)::int AS count
         FROM endpoints WHERE admission = 'active' GROUP BY 1 ORDER BY 1`,
    );
    const stale = await this.pools.read.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM endpoints
        WHERE revoked_at IS NULL AND admission = 'active'
          AND coalesce(last_seen_at, enrolled_at) < now() - make_interval(secs => $1)`,
      [staleSec],
    );
    return { states: states.rows, stale: stale.rows[0]?.count ?? 0 };
  }

  // Active endpoints per group and applied revision (`none` before the first apply).
  async appliedRevisions(): Promise<RevisionCount[]> {
    const r = await this.pools.read.query<RevisionCount>(
      `SELECT group_id::text AS "groupId", coalesce(applied_revision::text, 'none') AS revision, count(*)::int AS count
         FROM endpoints WHERE revoked_at IS NULL AND admission = 'active' GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return r.rows;
  }

  // Endpoints by enrollment decision (active, pending, rejected, retired), revoked ones included.
  async admissions(): Promise<AdmissionCount[]> {
    const r = await this.pools.read.query<AdmissionCount>(
      `SELECT admission, count(*)::int AS count FROM endpoints GROUP BY 1 ORDER BY 1`,
    );
    return r.rows;
  }

  // Releases by status; a paused one counts as gate-paused when its latest audited action is the gate's auto-pause.
  async releaseStatuses(): Promise<ReleaseStatusCount[]> {
    const r = await this.pools.read.query<ReleaseStatusCount>(
      `SELECT status,
              status = 'paused' AND coalesce((
                SELECT a.action FROM audit_log a
                 WHERE a.target_type = 'release' AND a.target_id = r.id::text
                 ORDER BY a.seq DESC LIMIT 1) = 'release.auto_pause', false) AS "gatePaused",
              count(*)::int AS count
         FROM releases r GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return r.rows;
  }

  // Open (unresolved) hook-run chain findings by kind.
  async openFindings(): Promise<FindingCount[]> {
    const r = await this.pools.read.query<FindingCount>(
      `SELECT kind, count(*)::int AS count FROM hook_run_findings WHERE resolved_at IS NULL GROUP BY 1 ORDER BY 1`,
    );
    return r.rows;
  }
}
