// Persistence of releases: creation (revision per group, audited), state transitions, gate and rollout counts.
import { Injectable } from '@nestjs/common';
import { Prisma, type Release } from '@prisma/client';
import type { SignedBundle } from '@hookwarden/hook-core';
import type { AuditDetailsOf } from '../audit-log/audit-details';
import { type AuditChange, type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import type { EndpointRuns } from './hook-gate';
import type { ServedRevision } from './rollout';
import type { ReportRun } from './shadow-report';

/** Most events a shadow report reads (the most recent ones). */
export const SHADOW_REPORT_MAX_EVENTS = 20_000;

/** A bundle the API signs: hook-core's signed bundle with its digest. */
export type IssuedBundle = Required<Pick<SignedBundle, 'manifest' | 'signature' | 'keyId' | 'digest'>>;

const WITH_VERSION = { policyVersion: { select: { number: true, policyId: true } } } satisfies Prisma.ReleaseInclude;
export type ReleaseRow = Prisma.ReleaseGetPayload<{ include: typeof WITH_VERSION }>;

/** Statuses whose bundle is (or was) delivered: the group's current release is the newest of these. */
export const LIVE_STATUSES = ['rolling', 'paused', 'completed'];

/** Enforced releases only (immediate, staged): what the managed layer, the gates and the rollback read. */
export const ENFORCED = { strategy: { not: 'shadow' } } satisfies Prisma.ReleaseWhereInput;
/** A group's live shadow release (at most one: partial unique index releases_one_live_shadow_per_group). */
const LIVE_SHADOW = { strategy: 'shadow', status: { in: LIVE_STATUSES } } satisfies Prisma.ReleaseWhereInput;

/** The shadow report's summary an audit entry keeps (shadowReportSummary). */
export type ShadowSummary = AuditDetailsOf<'release.promote'>['shadowReport'];

export interface NewRelease {
  /** Set when the bundle must name the release (a shadow bundle is signed with its release id). */
  id?: string;
  groupId: string;
  policyVersionId: string;
  strategy: 'immediate' | 'staged' | 'shadow';
  rings: number[];
  ringIntervalSec: number;
  maxApplyFailureRate: number;
  maxHookFailureRate: number | null;
  minHookRuns: number;
  minReportingEndpoints: number;
  createdBy: string | null;
  /** A staged release made by promote: the shadow release it came from. */
  promotedFromId?: string;
  /** A shadow release's budget (ms; null: the engine's default). */
  shadowBudgetMs?: number | null;
}

export class ReleaseConflict extends Error {}

/** Runs started up to this long before the release was created still count (endpoint clocks drift). */
const HOOK_GATE_CLOCK_SLACK_MS = 10 * 60_000;

/** Advisory lock namespace serializing releases per group. */
const GROUP_LOCK_NS = 0x4877_726c; // "Hwrl"

/** The audit actions of a guarded release transition. */
export type TransitionAction = 'release.advance' | 'release.pause' | 'release.auto_pause' | 'release.resume';
/** A transition's action with the details it adds to the release state `transition` records. */
export type TransitionChange = {
  [A in TransitionAction]: {
    action: A;
    details: Omit<AuditDetailsOf<A>, 'groupId' | 'revision' | 'status' | 'currentRing'>;
  };
}[TransitionAction];

@Injectable()
export class ReleasesRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Loads the group, version and files that a bundle is built from.
  async sourceFor(groupId: string, policyVersionId: string) {
    const [group, version] = await Promise.all([
      this.prisma.group.findUnique({ where: { id: groupId }, select: { id: true, name: true } }),
      this.prisma.policyVersion.findUnique({
        where: { id: policyVersionId },
        include: { files: true, policy: { select: { id: true, groupId: true } } },
      }),
    ]);
    return { group, version };
  }

  // Creates a release with the next revision of the group (supersedes an in-progress one if immediate), audited.
  async create(
    input: NewRelease,
    build: (revision: number) => IssuedBundle,
    ctx: AuditContext,
  ): Promise<{ release: ReleaseRow; superseded: string[] }> {
    return this.prisma.$transaction(async (tx) => this.createIn(tx, input, build, ctx));
  }

  // Serializes the group's release changes for the rest of the transaction.
  private async lockGroup(tx: Prisma.TransactionClient, groupId: string): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GROUP_LOCK_NS}, hashtext(${groupId}))`;
  }

  // The body of `create`, usable inside another transaction of this repository. Revisions count per group across
  // every strategy (a revision names one release); a shadow release is checked against the group's live shadow
  // release only, an enforced one against the enforced releases only.
  private async createIn(
    tx: Prisma.TransactionClient,
    input: NewRelease,
    build: (revision: number) => IssuedBundle,
    ctx: AuditContext,
  ): Promise<{ release: ReleaseRow; superseded: string[] }> {
    await this.lockGroup(tx, input.groupId);
    const last = await tx.release.findFirst({ where: { groupId: input.groupId }, orderBy: { revision: 'desc' } });
    const shadow = input.strategy === 'shadow';
    if (shadow) {
      const live = await tx.release.findFirst({
        where: { groupId: input.groupId, ...LIVE_SHADOW },
        select: { id: true },
      });
      if (live) {
        throw new ReleaseConflict(
          `Shadow release ${live.id} is live in this group (a group runs at most one shadow release): promote or ` +
            'abort it first',
        );
      }
    }
    const inProgress = shadow
      ? []
      : await tx.release.findMany({
          where: { groupId: input.groupId, status: { in: ['rolling', 'paused'] }, ...ENFORCED },
          select: { id: true },
        });
    if (inProgress.length > 0 && input.strategy === 'staged') {
      throw new ReleaseConflict(
        `Release ${inProgress[0]!.id} is still rolling out in this group: advance it to completion or abort it first`,
      );
    }
    const previous = shadow
      ? null
      : await tx.release.findFirst({
          where: { groupId: input.groupId, status: 'completed', ...ENFORCED },
          orderBy: { revision: 'desc' },
          select: { id: true },
        });
    if (inProgress.length > 0) {
      await tx.release.updateMany({
        where: { id: { in: inProgress.map((r) => r.id) } },
        data: { status: 'superseded', completedAt: new Date() },
      });
    }
    const revision = (last?.revision ?? 0) + 1;
    const signed = build(revision);
    // An immediate release, or a shadow release in one ring of 100%, reaches every endpoint at once.
    const immediate = input.strategy === 'immediate' || (shadow && input.rings.length === 1);
    const release = await tx.release.create({
      data: {
        ...(input.id ? { id: input.id } : {}),
        groupId: input.groupId,
        policyVersionId: input.policyVersionId,
        revision,
        strategy: input.strategy,
        status: immediate ? 'completed' : 'rolling',
        rings: input.strategy === 'immediate' ? [100] : input.rings,
        currentRing: 0,
        ringIntervalSec: input.ringIntervalSec,
        maxApplyFailureRate: input.maxApplyFailureRate,
        maxHookFailureRate: input.maxHookFailureRate,
        minHookRuns: input.minHookRuns,
        minReportingEndpoints: input.minReportingEndpoints,
        previousReleaseId: previous?.id ?? null,
        manifest: signed.manifest,
        signature: signed.signature,
        keyId: signed.keyId,
        digest: signed.digest,
        createdBy: input.createdBy,
        completedAt: immediate ? new Date() : null,
        promotedFromId: input.promotedFromId ?? null,
        shadowBudgetMs: input.shadowBudgetMs ?? null,
      },
      include: WITH_VERSION,
    });
    await appendAudit(tx, ctx, {
      action: 'release.create',
      targetType: 'release',
      targetId: release.id,
      beforeDigest: null,
      afterDigest: release.digest,
      details: {
        groupId: release.groupId,
        policyVersionId: release.policyVersionId,
        policyVersion: release.policyVersion.number,
        revision,
        strategy: release.strategy,
        rings: release.rings as number[],
        superseded: inProgress.map((r) => r.id),
      },
    });
    return { release, superseded: inProgress.map((r) => r.id) };
  }

  // One release, or null.
  async get(id: string): Promise<ReleaseRow | null> {
    return this.prisma.release.findUnique({ where: { id }, include: WITH_VERSION });
  }

  // A group's releases, newest revision first.
  async listForGroup(groupId: string): Promise<ReleaseRow[]> {
    return this.prisma.release.findMany({ where: { groupId }, include: WITH_VERSION, orderBy: { revision: 'desc' } });
  }

  // Every rolling release (the worker re-creates their ring advances), at most `limit`.
  async listRolling(
    limit: number,
  ): Promise<Array<Pick<Release, 'id' | 'currentRing' | 'ringIntervalSec' | 'updatedAt'>>> {
    return this.prisma.release.findMany({
      where: { status: 'rolling' },
      select: { id: true, currentRing: true, ringIntervalSec: true, updatedAt: true },
      orderBy: { updatedAt: 'asc' },
      take: limit,
    });
  }

  // The group's in-progress (rolling) enforced release, if any (the one the gates watch).
  async rollingForGroup(groupId: string): Promise<Release | null> {
    return this.prisma.release.findFirst({ where: { groupId, status: 'rolling', ...ENFORCED } });
  }

  // What the group's endpoints receive: the newest live enforced release and the previous completed one, and the
  // live shadow release (delivered beside them).
  async bundleRows(
    groupId: string,
  ): Promise<{ current: Release | null; previous: Release | null; shadow: Release | null }> {
    const [current, shadow] = await Promise.all([
      this.prisma.release.findFirst({
        where: { groupId, status: { in: LIVE_STATUSES }, ...ENFORCED },
        orderBy: { revision: 'desc' },
      }),
      this.prisma.release.findFirst({ where: { groupId, ...LIVE_SHADOW } }),
    ]);
    if (!current || current.status === 'completed' || !current.previousReleaseId)
      return { current, previous: null, shadow };
    const previous = await this.prisma.release.findUnique({ where: { id: current.previousReleaseId } });
    return { current, previous, shadow };
  }

  // Applies a guarded status/ring change with its audit entry; null when the guard no longer holds.
  async transition(
    id: string,
    guard: { status: string[]; currentRing?: number },
    data: Prisma.ReleaseUpdateInput,
    ctx: AuditContext,
    change: TransitionChange,
  ): Promise<ReleaseRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.release.updateMany({
        where: {
          id,
          status: { in: guard.status },
          ...(guard.currentRing !== undefined ? { currentRing: guard.currentRing } : {}),
        },
        data: data,
      });
      if (updated.count === 0) return null;
      const row = await tx.release.findUniqueOrThrow({ where: { id }, include: WITH_VERSION });
      const state = { groupId: row.groupId, revision: row.revision, status: row.status, currentRing: row.currentRing };
      // The release state completes the details the caller gave for its action (TransitionChange checks them).
      await appendAudit(tx, ctx, {
        action: change.action,
        targetType: 'release',
        targetId: id,
        afterDigest: row.digest,
        details: { ...state, ...change.details },
      } as AuditChange<TransitionAction>);
      return row;
    });
  }

  // Aborts a release and, when there is a previous release, re-issues its bundle under a new revision (one entry).
  async abort(
    id: string,
    ctx: AuditContext,
    buildRollback: ((previous: Release) => { input: NewRelease; build: (revision: number) => IssuedBundle }) | null,
  ): Promise<{ release: ReleaseRow; rollback: ReleaseRow | null } | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GROUP_LOCK_NS}, hashtext((SELECT group_id::text FROM releases WHERE id = ${id}::uuid)))`;
      const updated = await tx.release.updateMany({
        where: { id, status: { in: ['rolling', 'paused'] }, ...ENFORCED },
        data: { status: 'aborted', completedAt: new Date() },
      });
      if (updated.count === 0) return null;
      const release = await tx.release.findUniqueOrThrow({ where: { id }, include: WITH_VERSION });
      let rollback: ReleaseRow | null = null;
      if (release.previousReleaseId && buildRollback) {
        const previous = await tx.release.findUniqueOrThrow({ where: { id: release.previousReleaseId } });
        const { input, build } = buildRollback(previous);
        const last = await tx.release.findFirstOrThrow({
          where: { groupId: release.groupId },
          orderBy: { revision: 'desc' },
        });
        const signed = build(last.revision + 1);
        rollback = await tx.release.create({
          data: {
            groupId: input.groupId,
            policyVersionId: input.policyVersionId,
            revision: last.revision + 1,
            strategy: 'immediate',
            status: 'completed',
            rings: [100],
            ringIntervalSec: input.ringIntervalSec,
            maxApplyFailureRate: input.maxApplyFailureRate,
            maxHookFailureRate: input.maxHookFailureRate,
            minHookRuns: input.minHookRuns,
            minReportingEndpoints: input.minReportingEndpoints,
            previousReleaseId: previous.id,
            manifest: signed.manifest,
            signature: signed.signature,
            keyId: signed.keyId,
            digest: signed.digest,
            createdBy: input.createdBy,
            completedAt: new Date(),
          },
          include: WITH_VERSION,
        });
      }
      await appendAudit(tx, ctx, {
        action: 'release.abort',
        targetType: 'release',
        targetId: id,
        beforeDigest: release.digest,
        afterDigest: rollback?.digest ?? null,
        details: {
          groupId: release.groupId,
          revision: release.revision,
          rollbackReleaseId: rollback?.id ?? null,
          rollbackRevision: rollback?.revision ?? null,
        },
      });
      return { release, rollback };
    });
  }

  // Ends a live shadow release (its layer is no longer delivered), audited with the shadow report's summary; null
  // when it is not a live shadow release.
  async abortShadow(id: string, ctx: AuditContext, summary: ShadowSummary): Promise<ReleaseRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.release.updateMany({
        where: { id, ...LIVE_SHADOW },
        data: { status: 'aborted', completedAt: new Date() },
      });
      if (updated.count === 0) return null;
      const release = await tx.release.findUniqueOrThrow({ where: { id }, include: WITH_VERSION });
      await appendAudit(tx, ctx, {
        action: 'release.shadow_abort',
        targetType: 'release',
        targetId: id,
        beforeDigest: release.digest,
        afterDigest: null,
        details: { groupId: release.groupId, revision: release.revision, shadowReport: summary },
      });
      return release;
    });
  }

  // Promotes a live shadow release: it ends (status promoted) and a staged release of the same version is created
  // (refused like any staged release while another enforced rollout is in progress), both in one transaction, audited
  // with the shadow report's summary; null when it is not a live shadow release.
  async promote(
    id: string,
    input: NewRelease,
    build: (revision: number) => IssuedBundle,
    ctx: AuditContext,
    summary: ShadowSummary,
  ): Promise<{ shadow: ReleaseRow; release: ReleaseRow } | null> {
    return this.prisma.$transaction(async (tx) => {
      await this.lockGroup(tx, input.groupId);
      const updated = await tx.release.updateMany({
        where: { id, groupId: input.groupId, ...LIVE_SHADOW },
        data: { status: 'promoted', completedAt: new Date() },
      });
      if (updated.count === 0) return null;
      const { release } = await this.createIn(tx, { ...input, promotedFromId: id }, build, ctx);
      const shadow = await tx.release.update({
        where: { id },
        data: { promotedReleaseId: release.id },
        include: WITH_VERSION,
      });
      await appendAudit(tx, ctx, {
        action: 'release.promote',
        targetType: 'release',
        targetId: id,
        beforeDigest: shadow.digest,
        afterDigest: release.digest,
        details: {
          groupId: shadow.groupId,
          revision: shadow.revision,
          promotedReleaseId: release.id,
          promotedRevision: release.revision,
          rings: release.rings as number[],
          shadowReport: summary,
        },
      });
      return { shadow, release };
    });
  }

  // Among the group's admitted endpoints that report about this revision and were offered it (recorded in
  // endpoint_revisions): how many, and how many failed to apply it. A report about a revision the rollout never
  // offered the endpoint does not count, nor do pending duplicates, rejected and retired endpoints (not the fleet).
  async applyCounts(groupId: string, revision: number): Promise<{ total: number; failed: number }> {
    const rows = await this.prisma.$queryRaw<Array<{ total: number; failed: number }>>(Prisma.sql`
      SELECT count(*)::int AS total, (count(*) FILTER (WHERE e.state = 'failed'))::int AS failed
        FROM endpoints e
        JOIN endpoint_revisions er ON er.endpoint_id = e.id AND er.group_id = e.group_id AND er.revision = e.target_revision
       WHERE e.group_id = ${groupId}::uuid AND e.target_revision = ${revision} AND e.revoked_at IS NULL
         AND e.admission = 'active'`);
    return { total: rows[0]?.total ?? 0, failed: rows[0]?.failed ?? 0 };
  }

  // The group's admitted endpoints that applied this release's revision (not revoked, still in the group), each
  // with its runs under the revision from a little before the release (endpoint clock skew): how many ran (skipped
  // excluded) and how many of those failed or timed out. Summed from the per-endpoint rollup, which keeps only runs
  // of revisions the endpoint was served.
  async hookGateEndpoints(release: Pick<Release, 'groupId' | 'revision' | 'createdAt'>): Promise<EndpointRuns[]> {
    const since = new Date(release.createdAt.getTime() - HOOK_GATE_CLOCK_SLACK_MS);
    const rows = await this.prisma.$queryRaw<
      Array<{ endpointId: string; hostname: string; ran: number; failed: number }>
    >(Prisma.sql`
      SELECT er.endpoint_id::text AS "endpointId", e.hostname,
             coalesce(sum(c.ran), 0)::int8::float8 AS ran, coalesce(sum(c.failed), 0)::int8::float8 AS failed
        FROM endpoint_revisions er
        JOIN endpoints e ON e.id = er.endpoint_id AND e.group_id = er.group_id AND e.revoked_at IS NULL
         AND e.admission = 'active'
        LEFT JOIN hook_run_endpoint_counts c
          ON c.endpoint_id = er.endpoint_id AND c.group_id = er.group_id AND c.policy_revision = er.revision
         AND c.hour >= date_bin('1 hour', ${since.toISOString()}::timestamptz, TIMESTAMPTZ '2000-01-01 00:00:00+00')
       WHERE er.group_id = ${release.groupId}::uuid AND er.revision = ${release.revision} AND er.applied
       GROUP BY er.endpoint_id, e.hostname`);
    return rows.map((r) => ({ ...r, ran: Number(r.ran), failed: Number(r.failed) }));
  }

  // Records the revisions a status report shows the endpoint was served (and applied), each with its release; a
  // revision already recorded keeps its first time, and becomes applied once a report says so.
  async recordServed(endpointId: string, groupId: string, served: ServedRevision[]): Promise<void> {
    if (served.length === 0) return;
    await this.prisma.$executeRaw(Prisma.sql`
      INSERT INTO endpoint_revisions (endpoint_id, group_id, revision, release_id, applied, applied_at)
      SELECT ${endpointId}::uuid, ${groupId}::uuid, u.revision, u.release_id, u.applied,
             CASE WHEN u.applied THEN now() END
        FROM unnest(${served.map((s) => s.revision)}::int4[], ${served.map((s) => s.releaseId)}::uuid[],
                    ${served.map((s) => s.applied)}::bool[]) AS u(revision, release_id, applied)
      ON CONFLICT (endpoint_id, group_id, revision) DO UPDATE SET applied = true, applied_at = now()
       WHERE EXCLUDED.applied AND NOT endpoint_revisions.applied`);
  }

  // The group's releases of these revisions (what an endpoint's status report may be about).
  async releasesOfRevisions(groupId: string, revisions: number[]): Promise<Release[]> {
    if (revisions.length === 0) return [];
    return this.prisma.release.findMany({ where: { groupId, revision: { in: revisions }, ...ENFORCED } });
  }

  // Which of the revisions the endpoint is already recorded as served (and applied) in the group.
  async servedRevisions(endpointId: string, groupId: string): Promise<Map<number, boolean>> {
    const rows = await this.prisma.$queryRaw<Array<{ revision: number; applied: boolean }>>(Prisma.sql`
      SELECT revision, applied FROM endpoint_revisions WHERE endpoint_id = ${endpointId}::uuid AND group_id = ${groupId}::uuid`);
    return new Map(rows.map((r) => [r.revision, r.applied]));
  }

  // Runs claiming the revision in the group that the gate does not count: stored by endpoints that never applied it
  // (the hourly rollup holds every stored run, the per-endpoint one only the served ones).
  async hookRunsClaimed(release: Pick<Release, 'groupId' | 'revision' | 'createdAt'>): Promise<number> {
    const since = new Date(release.createdAt.getTime() - HOOK_GATE_CLOCK_SLACK_MS);
    const rows = await this.prisma.$queryRaw<Array<{ total: number }>>(Prisma.sql`
      SELECT coalesce(sum(n), 0)::int8::float8 AS total FROM hook_run_hourly
       WHERE group_id = ${release.groupId}::uuid AND policy_revision = ${String(release.revision)}
         AND hour >= date_bin('1 hour', ${since.toISOString()}::timestamptz, TIMESTAMPTZ '2000-01-01 00:00:00+00')
         AND status <> 'skipped'`);
    return Number(rows[0]?.total ?? 0);
  }

  // The runs of the events a shadow release's layer ran on (its shadow runs and the enforced runs of the same
  // dispatches), bounded to the most recent SHADOW_REPORT_MAX_EVENTS events.
  async shadowReportRuns(releaseId: string): Promise<ReportRun[]> {
    const rows = await this.prisma.$queryRaw<Array<Omit<ReportRun, 'recordedAt'> & { recordedAt: Date }>>(Prisma.sql`
      WITH ev AS (
        SELECT endpoint_id, record->>'dispatchId' AS dispatch_id, min(started_at) AS t0, max(started_at) AS t1
          FROM hook_runs WHERE shadow_release_id = ${releaseId}
         GROUP BY 1, 2 ORDER BY t1 DESC LIMIT ${SHADOW_REPORT_MAX_EVENTS})
      SELECT h.id::text AS id, h.endpoint_id::text AS "endpointId", ev.dispatch_id AS "dispatchId",
             h.started_at AS "recordedAt", h.hook_key AS "hookKey", h.managed, coalesce(h.record->>'effect', 'none') AS effect,
             h.shadow_release_id AS "shadowReleaseId", h.record->'shadow'->>'wouldHave' AS "wouldHave",
             h.tool_name AS "toolName", h.tool_command AS "toolCommand"
        FROM ev JOIN hook_runs h ON h.endpoint_id = ev.endpoint_id
         AND h.started_at BETWEEN ev.t0 - interval '15 minutes' AND ev.t1 + interval '15 minutes'
         AND h.record->>'dispatchId' = ev.dispatch_id
         AND (h.shadow_release_id IS NULL OR h.shadow_release_id = ${releaseId})`);
    return rows.map((r) => ({ ...r, recordedAt: r.recordedAt.toISOString() }));
  }

  // The group's admitted (active, not revoked) endpoints with what the rollout view needs.
  async endpointsOfGroup(groupId: string) {
    return this.prisma.endpoint.findMany({
      where: { groupId, revokedAt: null, admission: 'active' },
      select: {
        id: true,
        state: true,
        appliedRevision: true,
        targetRevision: true,
        shadowReleaseId: true,
        shadowError: true,
      },
    });
  }

  // Policy version numbers of releases by id.
  async releasesById(ids: string[]): Promise<Map<string, ReleaseRow>> {
    const rows = await this.prisma.release.findMany({ where: { id: { in: ids } }, include: WITH_VERSION });
    return new Map(rows.map((r) => [r.id, r]));
  }
}
