// Fleet-wide views: the endpoints list (any sort column, server-side filters, keyset pages), bulk move and revoke
// (one audited change per endpoint), the overview's counts and what needs attention.
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { signCursor, verifyCursor } from '../common/cursor';
import type { Admission } from '../endpoints/admission';
import { EndpointsService } from '../endpoints/endpoints.service';
import type { Attention, BulkResult, FleetEndpoint, FleetPage, FleetSummary, ListFleetQuery } from './fleet.dto';
import { FleetRepository, type NamedEndpointRow } from './fleet.repository';
import type { FleetKey, FleetRow } from './fleet.sql';
import { FLEET_STATES, type FleetState, OUTSIDE_FLEET_STATES, type SortColumn } from './fleet-state';

/** A cursor position: the sort value as PostgreSQL prints it (bounded) and the row's id. */
const fleetKey = z.object({ v: z.string().max(400), id: z.guid() }).strict();

/** Endpoints named per attention list. */
const ATTENTION_NAMES = 10;

// The cursor's list name: a cursor is only valid for the sort it was issued for.
const listName = (sort: SortColumn, order: string) => `fleet-endpoints:${sort}:${order}`;

// The public view of a list row.
function view(r: FleetRow): FleetEndpoint {
  return {
    id: r.id,
    hostname: r.hostname,
    groupId: r.group_id,
    groupName: r.group_name,
    platform: r.platform,
    agentVersion: r.agent_version,
    appliedRevision: r.applied_revision,
    appliedPolicyVersion: r.applied_policy_version,
    targetRevision: r.target_revision,
    state: r.fleet_state as FleetState,
    reportedState: r.state,
    admission: r.admission as Admission,
    lastSeenAt: r.last_seen_at?.toISOString() ?? null,
    enrolledAt: r.enrolled_at.toISOString(),
    openFindings: r.open_findings,
  };
}

// The attention list of rows in one state.
function named(rows: NamedEndpointRow[]) {
  return {
    total: rows[0]?.total ?? 0,
    items: rows.map((r) => ({
      id: r.id,
      hostname: r.hostname,
      groupId: r.group_id,
      groupName: r.group_name,
      lastSeenAt: r.last_seen_at?.toISOString() ?? null,
    })),
  };
}

@Injectable()
export class FleetService {
  constructor(
    private readonly repo: FleetRepository,
    private readonly endpoints: EndpointsService,
  ) {}

  // One page of the fleet-wide list with the total the filters match.
  async list(q: ListFleetQuery): Promise<FleetPage> {
    const { sort, order, limit, cursor, ...filters } = q;
    const after: FleetKey | undefined = verifyCursor(listName(sort, order), cursor, fleetKey);
    const { rows, total } = await this.repo.page(filters, sort, order, after, limit + 1, Date.now());
    const shown = rows.slice(0, limit);
    const last = shown[shown.length - 1];
    return {
      items: shown.map(view),
      nextCursor:
        rows.length > limit && last ? signCursor(listName(sort, order), { v: last.sort_key, id: last.id }) : null,
      total,
    };
  }

  // Moves each endpoint to the group (each move audited, its agent told at once); unknown ids are reported.
  async bulkMove(ids: string[], groupId: string, ctx: AuditContext): Promise<BulkResult> {
    const result: BulkResult = { changed: 0, unchanged: 0, notFound: [] };
    for (const id of ids) {
      try {
        const before = await this.endpoints.get(id);
        if (before.groupId === groupId) {
          result.unchanged++;
          continue;
        }
        await this.endpoints.move(id, groupId, ctx);
        result.changed++;
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not_found') throw err;
        // A missing group fails the whole request before anything changed (the first move finds it missing).
        if (err.message.startsWith('Group')) throw err;
        result.notFound.push(id);
      }
    }
    return result;
  }

  // Revokes each endpoint (each revocation audited, its credential refused at once on every instance).
  async bulkRevoke(ids: string[], ctx: AuditContext): Promise<BulkResult> {
    const result: BulkResult = { changed: 0, unchanged: 0, notFound: [] };
    for (const id of ids) {
      try {
        const before = await this.endpoints.get(id);
        if (before.revokedAt) {
          result.unchanged++;
          continue;
        }
        await this.endpoints.revoke(id, ctx);
        result.changed++;
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not_found') throw err;
        result.notFound.push(id);
      }
    }
    return result;
  }

  // Counts by fleet state and, for every group, its endpoints by applied policy version.
  async summary(): Promise<FleetSummary> {
    const [states, rows] = await Promise.all([this.repo.states(Date.now()), this.repo.groupVersions()]);
    const groups = new Map<string, FleetSummary['groups'][number]>();
    for (const r of rows) {
      const g = groups.get(r.id) ?? { id: r.id, name: r.name, total: 0, versions: [] };
      if (r.n > 0) {
        g.total += r.n;
        g.versions.push({ version: r.version, count: r.n });
      }
      groups.set(r.id, g);
    }
    return {
      states: FLEET_STATES.map((state) => ({
        state,
        count: states.get(state) ?? 0,
        inFleet: !OUTSIDE_FLEET_STATES.includes(state),
      })),
      groups: [...groups.values()],
    };
  }

  // What needs action: failed, stale, never-seen and pending endpoints by name, active rollouts, open findings.
  async attention(): Promise<Attention> {
    const now = Date.now();
    const [failed, stale, never, pending, rollouts, findings] = await Promise.all([
      this.repo.inState('failed', now, ATTENTION_NAMES),
      this.repo.inState('stale', now, ATTENTION_NAMES),
      this.repo.inState('never checked in', now, ATTENTION_NAMES),
      this.repo.inState('pending approval', now, ATTENTION_NAMES),
      this.repo.activeRollouts(),
      this.repo.openFindings(),
    ]);
    return {
      failed: named(failed),
      stale: named(stale),
      neverCheckedIn: named(never),
      pendingApproval: named(pending),
      rollouts: rollouts.map((r) => ({
        releaseId: r.id,
        groupId: r.group_id,
        groupName: r.group_name,
        policyId: r.policy_id,
        policyName: r.policy_name,
        policyVersion: r.policy_version,
        revision: r.revision,
        status: r.status,
        pausedReason: r.paused_reason,
        currentRing: r.current_ring,
        rings: Array.isArray(r.rings) ? r.rings.filter((x): x is number => typeof x === 'number') : [],
        createdAt: r.created_at.toISOString(),
      })),
      findings: {
        total: findings.reduce((n, f) => n + f.n, 0),
        byKind: findings.map((f) => ({ kind: f.kind, count: f.n })),
      },
    };
  }
}
