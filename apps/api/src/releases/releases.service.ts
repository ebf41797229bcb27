// Releases: build and sign a group's bundle, staged rollout (rings, gate, pause/resume/advance/abort), rollout view.
import { randomUUID } from 'node:crypto';
import { buildShadowReport, type ShadowReport, shadowReportSummary } from './shadow-report';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Release } from '@prisma/client';
import type { Queue } from 'bullmq';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { InventoryService, type PreviewedVersion } from '../inventory/inventory.service';
import { addJob, type JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { SigningService } from '../signing/signing.service';
import {
  type BundleLayer,
  bundleSigningText,
  buildManifest,
  checkBundleText,
  manifestDigest,
  serializeManifest,
  shadowRequirementsToml,
} from '@hookwarden/hook-core';
import { BundleEventsService } from './bundle-events.service';
import type { CreateReleaseInput, PromoteReleaseInput, ReleaseView } from './releases.dto';
import {
  type IssuedBundle,
  type NewRelease,
  ReleaseConflict,
  type ReleaseRow,
  ReleasesRepository,
} from './releases.repository';
import { HOOK_GATE_FORMULA, hookGate, type HookGateResult } from './hook-gate';
import {
  bucketOf,
  DEFAULT_RINGS,
  type GroupBundleState,
  type ReportedRevisions,
  reportedRevisions,
  ringOf,
  servedByReport,
  type ServedBundle,
  thresholdOf,
} from './rollout';

/** The actor of automatic rollout actions (ring advances by timer, gate pauses). */
export const ROLLOUT_ACTOR: AuditContext = { actorId: null, actorName: 'rollout', role: 'system' };

/** The data of a ring advance job (the job table's schema). */
export type AdvanceJob = JobPayload<'advance-ring'>;

/** Most rolling releases one reconciliation pass looks at (one per group at most). */
const ROLLING_SCAN_LIMIT = 10_000;

// True when two ring advance jobs advance the same release past the same ring.
export function sameAdvance(a: AdvanceJob, b: AdvanceJob): boolean {
  return a.releaseId === b.releaseId && a.ring === b.ring;
}

/** The data of a gate check job (the job table's schema). */
export type GateCheckJob = JobPayload<'check-gate'>;

/** Runs an endpoint must have recorded on the revision before its failure rate counts for the gate (unless set). */
export const DEFAULT_MIN_HOOK_RUNS = 20;
/** Reporting endpoints needed before the hook failure rate can pause a release (unless set). */
export const DEFAULT_MIN_REPORTING_ENDPOINTS = 3;
/** Endpoints listed in the rollout view's gate figures (worst first). */
const GATE_ENDPOINTS_SHOWN = 100;
/** Delay of a gate check after an ingested batch (batches committed meanwhile are seen by the same check). */
const GATE_CHECK_DELAY_MS = 1000;

// Public view of a release row.
export function toReleaseView(r: ReleaseRow): ReleaseView {
  return {
    id: r.id,
    groupId: r.groupId,
    policyVersionId: r.policyVersionId,
    policyId: r.policyVersion.policyId,
    policyVersion: r.policyVersion.number,
    revision: r.revision,
    strategy: r.strategy === 'staged' || r.strategy === 'shadow' ? r.strategy : 'immediate',
    status: r.status,
    rings: r.rings as number[],
    currentRing: r.currentRing,
    ringIntervalSec: r.ringIntervalSec,
    maxApplyFailureRate: r.maxApplyFailureRate,
    maxHookFailureRate: r.maxHookFailureRate,
    minHookRuns: r.minHookRuns,
    minReportingEndpoints: r.minReportingEndpoints,
    previousReleaseId: r.previousReleaseId,
    digest: r.digest,
    keyId: r.keyId,
    pausedReason: r.pausedReason,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
    promotedReleaseId: r.promotedReleaseId,
    promotedFromId: r.promotedFromId,
    shadowBudgetMs: r.shadowBudgetMs,
  };
}

// The response body an agent receives for a release (pre-serialized once per cache fill).
export function servedBundleOf(r: Release): ServedBundle {
  const body = Buffer.from(
    JSON.stringify({
      manifest: r.manifest,
      signature: r.signature,
      keyId: r.keyId,
      digest: r.digest,
      revision: r.revision,
      releaseId: r.id,
    }),
  );
  return { releaseId: r.id, revision: r.revision, digest: r.digest, etag: `"${r.digest}"`, body };
}

@Injectable()
export class ReleasesService {
  private readonly logger = new Logger('Releases');

  constructor(
    private readonly repo: ReleasesRepository,
    private readonly signing: SigningService,
    private readonly events: BundleEventsService,
    @InjectQueue(QUEUES.rollout) private readonly rolloutQueue: Queue,
    private readonly inventory: InventoryService,
  ) {}

  // Loads a policy version of the group (once) and returns it as the preview reads it, with a function that builds
  // and signs the group's bundle of it for a given revision. A shadow bundle (layer 'shadow', naming its release) is
  // the shadow form of the version (hook-core's relocation into the shadow directory), signed in the shadow context.
  private async bundleBuilder(
    groupId: string,
    policyVersionId: string,
    shadow: { releaseId: string; budgetMs?: number } | null = null,
  ): Promise<{ build: (revision: number) => IssuedBundle; version: PreviewedVersion }> {
    await this.signing.refreshSigner();
    const { group, version } = await this.repo.sourceFor(groupId, policyVersionId);
    if (!group) throw new ApiError('not_found', `Group ${groupId} not found`);
    if (!version) {
      throw new ApiError('not_found', `Policy version ${policyVersionId} not found`, [
        { path: '$.policyVersionId', message: 'no such policy version' },
      ]);
    }
    if (version.policy.groupId !== groupId) {
      throw new ApiError('conflict', `Policy version ${policyVersionId} belongs to a policy of another group`, [
        { path: '$.policyVersionId', message: `its policy belongs to group ${version.policy.groupId}` },
      ]);
    }
    const layer: BundleLayer = shadow ? 'shadow' : 'managed';
    let requirementsToml = version.canonicalToml;
    if (shadow) {
      try {
        requirementsToml = shadowRequirementsToml(version.canonicalToml);
      } catch (err) {
        throw new ApiError(
          'conflict',
          `Policy version ${policyVersionId} cannot be shadowed: ${(err as Error).message}`,
          [{ path: '$.policyVersionId', message: (err as Error).message }],
        );
      }
    }
    // A version stored before the current content rules may break them: every agent would refuse its bundle.
    const problems = checkBundleText(
      requirementsToml,
      version.files.map((f) => ({ path: f.path, size: f.content.length, mode: f.mode })),
      { layer },
    );
    if (problems.length > 0) {
      throw new ApiError(
        'conflict',
        `Policy version ${policyVersionId} breaks the bundle content rules, so every agent would refuse it: ` +
          `${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}. ` +
          'Author a corrected version and release that.',
        problems.map((p) => ({ path: '$.policyVersionId', message: p.message, code: p.code })),
      );
    }
    const build = (revision: number): IssuedBundle => {
      const manifest = buildManifest({
        group,
        policyId: version.policyId,
        policyVersion: version.number,
        policyVersionId: version.id,
        revision,
        issuedAt: new Date(),
        requirementsToml,
        files: version.files.map((f) => ({ path: f.path, content: f.content, mode: f.mode })),
        ...(shadow ? { shadow } : {}),
      });
      const text = serializeManifest(manifest);
      const { keyId, signature } = this.signing.sign(Buffer.from(bundleSigningText(text, layer), 'utf8'));
      return { manifest: text, signature, keyId, digest: manifestDigest(text) };
    };
    return { build, version: { id: version.id, policy: version.structured, files: version.files.map((f) => f.path) } };
  }

  // Creates a release (immediate, staged or shadow), wakes the group's waiting agents and schedules the first ring
  // advance. A shadow release needs no preview acknowledgement (it enforces nothing: promote asks for it).
  async create(groupId: string, input: CreateReleaseInput, ctx: AuditContext): Promise<ReleaseView> {
    const id = input.strategy === 'shadow' ? randomUUID() : undefined;
    const budgetMs = input.shadowBudgetMs;
    const { build, version } = await this.bundleBuilder(
      groupId,
      input.policyVersionId,
      id ? { releaseId: id, ...(budgetMs !== undefined ? { budgetMs } : {}) } : null,
    );
    if (input.strategy !== 'shadow') await this.inventory.requireAck(groupId, version, input.previewAck);
    const data: NewRelease = {
      id,
      groupId,
      policyVersionId: input.policyVersionId,
      strategy: input.strategy,
      rings: input.rings ?? DEFAULT_RINGS,
      ringIntervalSec: input.ringIntervalSec ?? 3600,
      maxApplyFailureRate: input.maxApplyFailureRate ?? 0.05,
      maxHookFailureRate: input.maxHookFailureRate ?? null,
      minHookRuns: input.minHookRuns ?? DEFAULT_MIN_HOOK_RUNS,
      minReportingEndpoints: input.minReportingEndpoints ?? DEFAULT_MIN_REPORTING_ENDPOINTS,
      shadowBudgetMs: budgetMs ?? null,
      createdBy: ctx.actorName,
    };
    let release: ReleaseRow;
    try {
      ({ release } = await this.repo.create(data, build, ctx));
    } catch (err) {
      if (err instanceof ReleaseConflict) throw new ApiError('conflict', err.message);
      throw err;
    }
    await this.events.publish(groupId);
    if (release.status === 'rolling') await this.scheduleAdvance(release);
    return toReleaseView(release);
  }

  // Lists a group's releases.
  async list(groupId: string): Promise<{ items: ReleaseView[] }> {
    return { items: (await this.repo.listForGroup(groupId)).map(toReleaseView) };
  }

  // One release or 404.
  private async mustGet(id: string): Promise<ReleaseRow> {
    const row = await this.repo.get(id);
    if (!row) throw new ApiError('not_found', `Release ${id} not found`);
    return row;
  }

  // One release.
  async get(id: string): Promise<ReleaseView> {
    return toReleaseView(await this.mustGet(id));
  }

  // Enqueues the delayed job that advances the release past its current ring.
  private async scheduleAdvance(release: Pick<Release, 'id' | 'currentRing' | 'ringIntervalSec'>): Promise<void> {
    const job: AdvanceJob = { releaseId: release.id, ring: release.currentRing };
    await addJob(this.rolloutQueue, 'advance-ring', job, {
      delay: release.ringIntervalSec * 1000,
      jobId: `adv_${release.id}_${release.currentRing}_${Date.now()}`,
    });
  }

  // Re-enqueues the ring advance of every rolling release, due one ring interval after its last transition (a job
  // lost with a Redis master is back; one that still exists is not doubled: the job id names the ring and the due
  // time, and a second advance of the same ring is skipped by the guarded transition); returns how many were added.
  async ensureAdvances(): Promise<number> {
    const rolling = await this.repo.listRolling(ROLLING_SCAN_LIMIT);
    if (rolling.length === 0) return 0;
    const pending = (await this.rolloutQueue.getJobs(['delayed', 'waiting', 'active', 'prioritized', 'failed']))
      .filter((j) => j?.name === 'advance-ring')
      .map((j) => j.data as AdvanceJob);
    let added = 0;
    for (const release of rolling) {
      const due = release.updatedAt.getTime() + release.ringIntervalSec * 1000;
      const job: AdvanceJob = { releaseId: release.id, ring: release.currentRing };
      if (pending.some((p) => sameAdvance(p, job))) continue;
      const jobId = `adv_${release.id}_${release.currentRing}_due${due}`;
      await addJob(this.rolloutQueue, 'advance-ring', job, { delay: Math.max(0, due - Date.now()), jobId });
      added++;
    }
    return added;
  }

  // Moves the release to its next ring (completing it at the last one), audited; null if it was not in that ring.
  private async advanceFrom(
    release: ReleaseRow,
    ctx: AuditContext,
    action: 'release.advance',
  ): Promise<ReleaseRow | null> {
    const rings = release.rings as number[];
    const next = release.currentRing + 1;
    const completes = next >= rings.length - 1;
    const row = await this.repo.transition(
      release.id,
      { status: ['rolling', 'paused'], currentRing: release.currentRing },
      {
        currentRing: Math.min(next, rings.length - 1),
        status: completes ? 'completed' : release.status,
        completedAt: completes ? new Date() : null,
      },
      ctx,
      { action, details: { fromRing: release.currentRing, toRing: Math.min(next, rings.length - 1) } },
    );
    if (!row) return null;
    await this.events.publish(row.groupId);
    if (row.status === 'rolling') await this.scheduleAdvance(row);
    return row;
  }

  // The worker's job: gate, then advance (stale jobs — other ring, paused, finished — do nothing).
  async advanceFromJob(job: AdvanceJob): Promise<'advanced' | 'paused' | 'skipped'> {
    const release = await this.repo.get(job.releaseId);
    if (!release || release.status !== 'rolling' || release.currentRing !== job.ring) return 'skipped';
    // A shadow release has no gate: its hooks decide nothing, so nothing they do can fail the rollout.
    if (release.strategy !== 'shadow' && (await this.gate(release))) return 'paused';
    return (await this.advanceFrom(release, ROLLOUT_ACTOR, 'release.advance')) ? 'advanced' : 'skipped';
  }

  // Pauses the release when a failure ratio exceeds its threshold (only the apply rule when `rules` says so); true
  // when it paused.
  private async gate(release: ReleaseRow, rules: 'all' | 'apply' = 'all'): Promise<boolean> {
    const reason = await this.gateReason(release, rules);
    if (!reason) return false;
    const row = await this.repo.transition(
      release.id,
      { status: ['rolling'] },
      { status: 'paused', pausedReason: reason },
      ROLLOUT_ACTOR,
      { action: 'release.auto_pause', details: { reason } },
    );
    if (row) {
      this.logger.warn({ releaseId: release.id, reason }, 'rollout paused by its gate');
      await this.events.publish(row.groupId);
    }
    return true;
  }

  // Why the gate closes, or null: apply failures among endpoints on the revision, then the hook failure rule over the
  // endpoints that applied it (hookGate: each endpoint's own rate, weighing once; enough reporting endpoints).
  private async gateReason(release: ReleaseRow, rules: 'all' | 'apply'): Promise<string | null> {
    const { total, failed } = await this.repo.applyCounts(release.groupId, release.revision);
    if (total > 0 && failed / total > release.maxApplyFailureRate) {
      return `apply failure rate ${(failed / total).toFixed(3)} (${failed}/${total}) exceeds ${release.maxApplyFailureRate}`;
    }
    if (rules === 'all' && release.maxHookFailureRate !== null) return (await this.hookGateOf(release)).reason;
    return null;
  }

  // The hook failure rule applied to the release's endpoints.
  private async hookGateOf(release: ReleaseRow): Promise<HookGateResult> {
    return hookGate(await this.repo.hookGateEndpoints(release), release);
  }

  // Records which revisions a status report shows the endpoint was served and applied (only those the rollout really
  // offered it, and applied only with the release's digest), then runs the gate of the group's rolling release if the
  // report concerns it.
  async afterReport(endpointId: string, groupId: string, s: ReportedRevisions): Promise<void> {
    let applied: number[] = [];
    if (s.targetRevision !== null || s.appliedRevision !== null) {
      const claims = reportedRevisions(s, await this.repo.servedRevisions(endpointId, groupId));
      if (claims.size > 0) {
        const releases = await this.repo.releasesOfRevisions(groupId, [...claims.keys()]);
        const offered = releases.map((r) => ({ ...r, rings: r.rings as number[] }));
        const served = servedByReport(claims, s.appliedDigest, offered, endpointId);
        await this.repo.recordServed(endpointId, groupId, served);
        applied = served.filter((x) => x.applied).map((x) => x.revision);
      }
    }
    await this.checkGateAfterReport(groupId, s.targetRevision, applied);
  }

  // After a status report: the apply rule of the group's rolling release when the report is about its revision (at
  // once), and the hook rule when the endpoint newly applied it (a queued check, at most one per group and second: it
  // reads every endpoint's runs, so a fleet reporting at once does not run it per report).
  private async checkGateAfterReport(groupId: string, revision: number | null, applied: number[]): Promise<void> {
    const rolling = await this.repo.rollingForGroup(groupId);
    if (!rolling) return;
    if (rolling.maxHookFailureRate !== null && applied.includes(rolling.revision)) {
      // Not awaited: without Redis it waits for the connection, and the report must not (the ring advance gates too).
      void this.scheduleGateCheck(groupId).catch((err: unknown) =>
        this.logger.warn(`could not queue the gate check of group ${groupId}: ${(err as Error).message}`),
      );
    }
    if (rolling.revision !== revision) return;
    const row = await this.repo.get(rolling.id);
    if (row) await this.gate(row, 'apply');
  }

  // The worker's job after hook runs of the group were ingested: runs the gate of its rolling release, if that
  // release has a hook failure threshold.
  async checkGateAfterHookRuns(groupId: string): Promise<'paused' | 'open' | 'skipped'> {
    const rolling = await this.repo.rollingForGroup(groupId);
    if (!rolling || rolling.maxHookFailureRate === null) return 'skipped';
    const row = await this.repo.get(rolling.id);
    if (!row || row.status !== 'rolling') return 'skipped';
    return (await this.gate(row)) ? 'paused' : 'open';
  }

  // Queues a gate check of the group after hook runs arrived: at most one job per group and second (the job
  // id dedupes), run a second later so it sees every batch committed in that second.
  async scheduleGateCheck(groupId: string): Promise<void> {
    const second = Math.floor(Date.now() / 1000);
    const job: GateCheckJob = { groupId };
    await addJob(this.rolloutQueue, 'check-gate', job, {
      delay: GATE_CHECK_DELAY_MS,
      jobId: `gate_${groupId}_${second}`,
    });
  }

  // Admin pause.
  async pause(id: string, reason: string | undefined, ctx: AuditContext): Promise<ReleaseView> {
    const release = await this.mustGet(id);
    if (release.status === 'paused') return toReleaseView(release);
    const row = await this.repo.transition(
      id,
      { status: ['rolling'] },
      { status: 'paused', pausedReason: reason ?? `paused by ${ctx.actorName}` },
      ctx,
      { action: 'release.pause', details: { reason: reason ?? null } },
    );
    if (!row)
      throw new ApiError('conflict', `Release ${id} is ${release.status}; only a rolling release can be paused`);
    await this.events.publish(row.groupId);
    return toReleaseView(row);
  }

  // Admin resume: back to rolling; the next ring advance is scheduled one interval from now.
  async resume(id: string, ctx: AuditContext): Promise<ReleaseView> {
    const release = await this.mustGet(id);
    const row = await this.repo.transition(id, { status: ['paused'] }, { status: 'rolling', pausedReason: null }, ctx, {
      action: 'release.resume',
      details: {},
    });
    if (!row)
      throw new ApiError('conflict', `Release ${id} is ${release.status}; only a paused release can be resumed`);
    await this.events.publish(row.groupId);
    await this.scheduleAdvance(row);
    return toReleaseView(row);
  }

  // Admin advance: moves to the next ring now (no gate: the admin overrides it).
  async advance(id: string, ctx: AuditContext): Promise<ReleaseView> {
    const release = await this.mustGet(id);
    if (release.status !== 'rolling' && release.status !== 'paused') {
      throw new ApiError(
        'conflict',
        `Release ${id} is ${release.status}; only a rolling or paused release can advance`,
      );
    }
    const row = await this.advanceFrom(release, ctx, 'release.advance');
    if (!row) throw new ApiError('conflict', `Release ${id} changed meanwhile; retry`);
    return toReleaseView(row);
  }

  // Admin abort: every endpoint goes back to the previous release's content at once (re-issued as a new revision,
  // so agents that already applied the aborted one accept it: revisions only increase).
  async abort(id: string, ctx: AuditContext): Promise<{ release: ReleaseView; rollback: ReleaseView | null }> {
    const release = await this.mustGet(id);
    if (release.strategy === 'shadow') return { release: await this.abortShadow(release, ctx), rollback: null };
    let rollbackBuild: ((revision: number) => IssuedBundle) | null = null;
    if (release.previousReleaseId) {
      const prev = await this.repo.get(release.previousReleaseId);
      if (prev) rollbackBuild = (await this.bundleBuilder(release.groupId, prev.policyVersionId)).build;
    }
    const result = await this.repo.abort(
      id,
      ctx,
      rollbackBuild
        ? (previous) => ({
            input: {
              groupId: release.groupId,
              policyVersionId: previous.policyVersionId,
              strategy: 'immediate',
              rings: [100],
              ringIntervalSec: previous.ringIntervalSec,
              maxApplyFailureRate: previous.maxApplyFailureRate,
              maxHookFailureRate: previous.maxHookFailureRate,
              minHookRuns: previous.minHookRuns,
              minReportingEndpoints: previous.minReportingEndpoints,
              createdBy: ctx.actorName,
            },
            build: rollbackBuild,
          })
        : null,
    );
    if (!result)
      throw new ApiError(
        'conflict',
        `Release ${id} is ${release.status}; only a rolling or paused release can be aborted`,
      );
    await this.events.publish(release.groupId);
    return {
      release: toReleaseView(result.release),
      rollback: result.rollback ? toReleaseView(result.rollback) : null,
    };
  }

  // Aborts a shadow release: its layer is no longer offered, so every agent removes it on its next answer (held long
  // polls are woken); audited with the report's summary at this moment.
  private async abortShadow(release: ReleaseRow, ctx: AuditContext): Promise<ReleaseView> {
    const summary = shadowReportSummary(await this.shadowReport(release.id));
    const row = await this.repo.abortShadow(release.id, ctx, summary);
    if (!row) {
      throw new ApiError(
        'conflict',
        `Release ${release.id} is a ${release.status} shadow release; only a live (rolling, paused or completed) one can be aborted`,
      );
    }
    await this.events.publish(row.groupId);
    return toReleaseView(row);
  }

  // Promotes a live shadow release to a staged release of the same version: rings (default the shadow release's),
  // gates and the preview acknowledgement as for any staged release (428 when the preview requires one); the shadow
  // layer is no longer offered. Audited with the shadow report's summary at this moment.
  async promote(
    id: string,
    input: PromoteReleaseInput | undefined,
    ctx: AuditContext,
  ): Promise<{ shadow: ReleaseView; release: ReleaseView }> {
    const shadow = await this.mustGet(id);
    if (shadow.strategy !== 'shadow') {
      throw new ApiError('conflict', `Release ${id} is ${shadow.strategy}; only a shadow release can be promoted`);
    }
    if (!['rolling', 'paused', 'completed'].includes(shadow.status)) {
      throw new ApiError(
        'conflict',
        `Release ${id} is a ${shadow.status} shadow release; only a live (rolling, paused or completed) one can be promoted`,
      );
    }
    const { build, version } = await this.bundleBuilder(shadow.groupId, shadow.policyVersionId);
    await this.inventory.requireAck(shadow.groupId, version, input?.previewAck);
    const summary = shadowReportSummary(await this.shadowReport(id));
    let result: { shadow: ReleaseRow; release: ReleaseRow } | null;
    try {
      result = await this.repo.promote(
        id,
        {
          groupId: shadow.groupId,
          policyVersionId: shadow.policyVersionId,
          strategy: 'staged',
          rings: input?.rings ?? (shadow.rings as number[]),
          ringIntervalSec: input?.ringIntervalSec ?? shadow.ringIntervalSec,
          maxApplyFailureRate: input?.maxApplyFailureRate ?? 0.05,
          maxHookFailureRate: input?.maxHookFailureRate ?? null,
          minHookRuns: input?.minHookRuns ?? DEFAULT_MIN_HOOK_RUNS,
          minReportingEndpoints: input?.minReportingEndpoints ?? DEFAULT_MIN_REPORTING_ENDPOINTS,
          createdBy: ctx.actorName,
        },
        build,
        ctx,
        summary,
      );
    } catch (err) {
      if (err instanceof ReleaseConflict) throw new ApiError('conflict', err.message);
      throw err;
    }
    if (!result) throw new ApiError('conflict', `Release ${id} changed meanwhile; retry`);
    await this.events.publish(shadow.groupId);
    if (result.release.status === 'rolling') await this.scheduleAdvance(result.release);
    return { shadow: toReleaseView(result.shadow), release: toReleaseView(result.release) };
  }

  /** Compares a shadow release's decisions with the enforced ones over the same events. */
  async shadowReport(id: string): Promise<ShadowReport> {
    await this.mustGet(id);
    return buildShadowReport(id, await this.repo.shadowReportRuns(id));
  }

  // Per ring and version: assigned, applied, failed and stale endpoint counts, plus the gate's figures. A shadow
  // release's rings count its shadow layer: applied where the agent reports it on disk, failed where it refused one.
  async rollout(id: string) {
    const release = await this.mustGet(id);
    const rings = release.rings as number[];
    const previous = release.previousReleaseId ? await this.repo.get(release.previousReleaseId) : null;
    const endpoints = await this.repo.endpointsOfGroup(release.groupId);
    const finished = release.status === 'completed';
    const shadow = release.strategy === 'shadow';
    const out = rings.map((percent, ring) => ({
      ring,
      percent,
      active: finished || ring <= release.currentRing,
      counts: new Map<string, { assigned: number; applied: number; failed: number; stale: number }>(),
    }));
    for (const e of endpoints) {
      const ring = ringOf(bucketOf(e.id, release.id), rings);
      const slot = out[ring]!;
      // A shadow release has no previous one: an endpoint outside its reached rings has no shadow layer.
      const target = finished || ring <= release.currentRing ? release : shadow ? null : previous;
      if (!target) continue;
      let c = slot.counts.get(target.id);
      if (!c) slot.counts.set(target.id, (c = { assigned: 0, applied: 0, failed: 0, stale: 0 }));
      c.assigned++;
      if (shadow) {
        if (e.shadowReleaseId === release.id) c.applied++;
        else if (e.shadowError !== null) c.failed++;
        else c.stale++;
      } else if (e.appliedRevision === target.revision && e.state !== 'failed') c.applied++;
      else if (e.state === 'failed' && e.targetRevision === target.revision) c.failed++;
      else c.stale++;
    }
    const byId = new Map([release, ...(previous ? [previous] : [])].map((r) => [r.id, r]));
    const { total, failed } = await this.repo.applyCounts(release.groupId, release.revision);
    const hooks = await this.hookGateOf(release);
    const counted = hooks.endpoints.reduce((n, e) => n + e.ran, 0);
    const claimed = await this.repo.hookRunsClaimed(release);
    return {
      release: toReleaseView(release),
      rings: out.map((r) => ({
        ring: r.ring,
        percent: r.percent,
        active: r.active,
        versions: [...r.counts.entries()].map(([rid, c]) => ({
          releaseId: rid,
          revision: byId.get(rid)!.revision,
          policyVersion: byId.get(rid)!.policyVersion.number,
          ...c,
        })),
      })),
      gate: {
        applyFailureRate: total > 0 ? failed / total : null,
        hookFailureRate: hooks.failureRate,
        endpointsOnRevision: total,
        hookRunsOnRevision: counted,
        hookRunsNotCounted: Math.max(0, claimed - counted),
        hookFormula: HOOK_GATE_FORMULA,
        maxHookFailureRate: release.maxHookFailureRate,
        minHookRuns: release.minHookRuns,
        minReportingEndpoints: release.minReportingEndpoints,
        appliedEndpoints: hooks.endpoints.length,
        reportingEndpoints: hooks.reportingEndpoints,
        hookEndpoints: hooks.endpoints.slice(0, GATE_ENDPOINTS_SHOWN),
        hookReason: hooks.reason,
      },
    };
  }

  // What the group's endpoints receive now (read by the bundle cache): the enforced bundle and the shadow one.
  async bundleState(groupId: string): Promise<GroupBundleState> {
    const { current, previous, shadow } = await this.repo.bundleRows(groupId);
    const shadowState = shadow ? { bundle: servedBundleOf(shadow), threshold: thresholdOf(shadow) } : null;
    if (!current) return { current: null, previous: null, threshold: 100, shadow: shadowState };
    return {
      current: servedBundleOf(current),
      previous: previous ? servedBundleOf(previous) : null,
      threshold: thresholdOf(current),
      shadow: shadowState,
    };
  }
}
