// Request/response schemas of releases and rollouts.
import { DEFAULT_SHADOW_GRACE_MS, MAX_SHADOW_GRACE_MS } from '@hookwarden/hook-core';
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

/** The release strategies: enforced at once, enforced ring by ring, or beside the enforced policy (observe mode). */
export const RELEASE_STRATEGIES = ['immediate', 'staged', 'shadow'] as const;

/** Gate settings of a staged rollout (a shadow release has none: its hooks decide nothing). */
const GATE_FIELDS = ['maxApplyFailureRate', 'maxHookFailureRate', 'minHookRuns', 'minReportingEndpoints'] as const;

// Rings strictly increasing and ending at 100 (shared by create and promote).
function checkRings(rings: number[] | undefined, ctx: z.RefinementCtx): void {
  if (!rings) return;
  for (let i = 1; i < rings.length; i++) {
    if (rings[i]! <= rings[i - 1]!) {
      ctx.addIssue({ code: 'custom', path: ['rings', i], message: 'rings must be strictly increasing' });
    }
  }
  if (rings[rings.length - 1] !== 100) {
    ctx.addIssue({ code: 'custom', path: ['rings', rings.length - 1], message: 'the last ring must be 100' });
  }
}

const rolloutFields = {
  rings: z
    .array(z.number().int().min(1).max(100))
    .min(1)
    .max(20)
    .optional()
    .describe('Cumulative percentages of endpoints per ring, strictly increasing, ending at 100 (default 1,5,25,100)'),
  ringIntervalSec: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional()
    .describe('Pause between rings (default 3600)'),
};

// An optional ratio in [0, 1], and an optional count in [1, 1 000 000] (the gate settings' shapes).
const ratio = () => z.number().min(0).max(1).optional();
const count = () => z.number().int().min(1).max(1_000_000).optional();

const gateFields = {
  maxApplyFailureRate: ratio().describe('Auto-pause above this apply-failure ratio'),
  maxHookFailureRate: ratio().describe(
    "Auto-pause when the mean of the reporting endpoints' own hook failure rates (failed or timed-out runs " +
      'over runs that ran under the new revision, skipped excluded) exceeds this. Unset: no hook gate',
  ),
  minHookRuns: count().describe(
    'Hook runs (that ran) an endpoint that applied the new revision needs under it before its own failure rate ' +
      'counts for the gate, as one reporting endpoint (default 20)',
  ),
  minReportingEndpoints: count().describe(
    'Reporting endpoints needed before maxHookFailureRate can pause the rollout (default 3), so one endpoint ' +
      'cannot pause a ring',
  ),
};

const previewAck = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/)
  .optional()
  .describe('The digest of the release preview you reviewed (needed when the preview says requiresAck)');

export const createReleaseSchema = z
  .object({
    policyVersionId: z.uuid().describe('The policy version to make current for the group'),
    strategy: z
      .enum(RELEASE_STRATEGIES)
      .default('immediate')
      .describe(
        'immediate | staged (rings, gates) | shadow: delivered beside the enforced policy, in the same rings, its hooks ' +
          'only observed (GET /v1/releases/:id/shadow-report), until promote or abort',
      ),
    ...rolloutFields,
    ...gateFields,
    previewAck,
    shadowBudgetMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_SHADOW_GRACE_MS)
      .optional()
      .describe(
        `A shadow release only: how long its hooks may keep running after the enforced hooks of an event are done ` +
          `before they are killed and recorded as timed out (ms, 0-${MAX_SHADOW_GRACE_MS}; default ` +
          `${DEFAULT_SHADOW_GRACE_MS}). It bounds what the shadow layer can add to a developer's tool call.`,
      ),
  })
  .strict()
  .superRefine((v, ctx) => {
    checkRings(v.rings, ctx);
    if (v.strategy !== 'shadow') {
      if (v.shadowBudgetMs !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['shadowBudgetMs'],
          message: `only a shadow release has a budget (this one is ${v.strategy})`,
        });
      return;
    }
    // A shadow release decides nothing: no gate watches it, and its impact is acknowledged when it is promoted.
    for (const k of GATE_FIELDS) {
      if (v[k] !== undefined)
        ctx.addIssue({ code: 'custom', path: [k], message: 'a shadow release has no gates: give them at promote' });
    }
    if (v.previewAck !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['previewAck'],
        message: 'a shadow release enforces nothing: acknowledge the preview at promote',
      });
  });
export class CreateReleaseDto extends createZodDto(createReleaseSchema) {}
export type CreateReleaseInput = z.infer<typeof createReleaseSchema>;

export const promoteReleaseSchema = z
  .object({
    rings: rolloutFields.rings.describe("Rings of the staged release it becomes (default: the shadow release's rings)"),
    ringIntervalSec: rolloutFields.ringIntervalSec.describe(
      "Pause between its rings (default: the shadow release's interval)",
    ),
    ...gateFields,
    previewAck,
  })
  .strict()
  .superRefine((v, ctx) => checkRings(v.rings, ctx));
// The body is optional (a bare POST promotes with the shadow release's rings and the default gates).
export class PromoteReleaseDto extends createZodDto(
  promoteReleaseSchema.optional() as unknown as typeof promoteReleaseSchema,
) {}
export type PromoteReleaseInput = z.infer<typeof promoteReleaseSchema>;

export const releaseViewSchema = z.object({
  id: z.uuid(),
  groupId: z.uuid(),
  policyVersionId: z.uuid(),
  policyId: z.uuid(),
  policyVersion: z.number().int(),
  revision: z.number().int(),
  strategy: z.enum(RELEASE_STRATEGIES),
  status: z
    .string()
    .describe(
      'rolling | paused | completed | aborted | superseded; a shadow release: rolling | paused | completed (every ring ' +
        'reached; its layer stays delivered) | promoted | aborted',
    ),
  rings: z.array(z.number().int()),
  currentRing: z.number().int(),
  ringIntervalSec: z.number().int(),
  maxApplyFailureRate: z.number(),
  maxHookFailureRate: z.number().nullable(),
  minHookRuns: z.number().int(),
  minReportingEndpoints: z.number().int(),
  previousReleaseId: z.uuid().nullable(),
  digest: z.string().describe('Bundle digest (the ETag agents see)'),
  keyId: z.string(),
  pausedReason: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  promotedReleaseId: z.uuid().nullable().describe('A promoted shadow release: the staged release it became'),
  promotedFromId: z.uuid().nullable().describe('A staged release made by promote: the shadow release it came from'),
  shadowBudgetMs: z
    .number()
    .int()
    .nullable()
    .describe("A shadow release's budget for its hooks after the enforced ones (ms; null: the engine's default)"),
});
export class ReleaseViewDto extends createZodDto(releaseViewSchema) {}
export type ReleaseView = z.infer<typeof releaseViewSchema>;

export const releaseListSchema = z.object({ items: z.array(releaseViewSchema) });
export class ReleaseListDto extends createZodDto(releaseListSchema) {}

export const releaseActionSchema = z.object({ reason: z.string().max(500).optional() }).strict();
// The body is optional (a bare POST is fine); typed as the object for the DTO class.
export class ReleaseActionDto extends createZodDto(
  releaseActionSchema.optional() as unknown as typeof releaseActionSchema,
) {}

export const abortedSchema = z.object({
  release: releaseViewSchema,
  rollback: releaseViewSchema.nullable().describe('The new release that re-issues the previous bundle, if any'),
});
export class AbortedDto extends createZodDto(abortedSchema) {}

export const promotedSchema = z.object({
  shadow: releaseViewSchema.describe('The shadow release, now promoted (its layer is no longer delivered)'),
  release: releaseViewSchema.describe('The staged release of the same version it became'),
});
export class PromotedDto extends createZodDto(promotedSchema) {}

const versionCountsSchema = z.object({
  releaseId: z.uuid(),
  revision: z.number().int(),
  policyVersion: z.number().int(),
  assigned: z.number().int(),
  applied: z.number().int(),
  failed: z.number().int(),
  stale: z.number().int().describe('Assigned but neither applied nor failed yet'),
});
export const rolloutSchema = z.object({
  release: releaseViewSchema,
  rings: z.array(
    z.object({
      ring: z.number().int(),
      percent: z.number().int(),
      active: z.boolean().describe('Endpoints of this ring receive the new release'),
      versions: z.array(versionCountsSchema),
    }),
  ),
  gate: z.object({
    applyFailureRate: z.number().nullable(),
    hookFailureRate: z
      .number()
      .nullable()
      .describe("Mean of the reporting endpoints' own failure rates (see hookFormula; null: none reports yet)"),
    endpointsOnRevision: z
      .number()
      .int()
      .describe("Endpoints offered the revision whose last status report is about it (the apply gate's population)"),
    hookRunsOnRevision: z
      .number()
      .int()
      .describe('Hook runs that ran under the revision on the endpoints that applied it (what the gate reads)'),
    hookRunsNotCounted: z
      .number()
      .int()
      .describe(
        'Runs stored under the revision that the gate does not count: from endpoints that never applied it ' +
          '(flagged as unserved_revision findings), revoked or moved out of the group',
      ),
    hookFormula: z.string().describe('The hook failure rule, exactly'),
    maxHookFailureRate: z.number().nullable(),
    minHookRuns: z.number().int(),
    minReportingEndpoints: z.number().int(),
    appliedEndpoints: z.number().int().describe("Endpoints that applied the revision (the gate's population)"),
    reportingEndpoints: z.number().int().describe('Of those, the ones with at least minHookRuns runs'),
    hookEndpoints: z
      .array(
        z.object({
          endpointId: z.uuid(),
          hostname: z.string(),
          ran: z.number().int().describe('Runs that ran under the revision (skipped excluded)'),
          failed: z.number().int().describe('Of those, failed or timed out'),
          failureRate: z.number().nullable().describe('failed / ran (null: no run yet)'),
          reporting: z.boolean().describe('ran >= minHookRuns: its rate counts, weighing once'),
        }),
      )
      .describe('The endpoints that applied the revision, worst failure rate first (at most 100)'),
    hookReason: z.string().nullable().describe('Why the hook rule closes the gate now, or null'),
  }),
});
export class RolloutDto extends createZodDto(rolloutSchema) {}

const shadowCounts = {
  wouldNewlyDeny: z.number().describe('events a shadow hook would have denied or blocked where no enforced hook did'),
  wouldStopDenying: z
    .number()
    .describe('events an enforced managed hook denied that no shadow hook would have (and no unmanaged hook did)'),
  rewrites: z.number().describe('shadow runs that would have rewritten the tool input'),
  errors: z.number().describe('shadow runs that failed (crash, invalid output, could not start)'),
  timeouts: z.number().describe('shadow runs that timed out or were killed at the shadow budget'),
};
export const shadowReportSchema = z.object({
  releaseId: z.string(),
  events: z.number().describe('events the shadow layer ran on (the most recent 20000 at most)'),
  shadowRuns: z.number(),
  totals: z.object(shadowCounts),
  byHook: z.array(z.object({ hookKey: z.string(), ...shadowCounts })),
  byEndpoint: z.array(z.object({ endpointId: z.string(), ...shadowCounts })),
  byToolCommand: z.array(
    z.object({ toolName: z.string().nullable(), toolCommand: z.string().nullable(), ...shadowCounts }),
  ),
  samples: z.array(
    z.object({
      category: z.enum(['wouldNewlyDeny', 'wouldStopDenying', 'rewrites', 'errors', 'timeouts']),
      dispatchId: z.string(),
      endpointId: z.string(),
      recordedAt: z.string(),
      hookKey: z.string(),
      toolName: z.string().nullable(),
      toolCommand: z.string().nullable(),
      shadowRunId: z.string().describe('GET /v1/hook-runs/:id'),
      enforcedRunIds: z.array(z.string()),
    }),
  ),
});
export class ShadowReportDto extends createZodDto(shadowReportSchema) {}
