// Request/response schemas of the admin endpoint routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { cursorParam, limitParam, queryText, uuidParam } from '../common/query';
import { FLEET_STATES } from '../fleet/fleet-state';
import { ADMISSIONS } from './admission';

/** What the API keeps of an endpoint's last status report: when, its errors and its managed files' digests. */
const lastStatusSchema = z.object({
  at: z.iso.datetime(),
  errors: z.array(z.string()),
  files: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })),
});

// The stored last status report as the API shows it (null when none, or not the shape the API stores).
export function readLastStatus(stored: unknown): z.infer<typeof lastStatusSchema> | null {
  const parsed = lastStatusSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

export const listEndpointsQuerySchema = z
  .object({
    groupId: uuidParam().optional(),
    state: z.enum(['pending', 'applied', 'failed', 'drifted', 'revoked']).optional(),
    platform: queryText(32).optional(),
    admission: z
      .enum(ADMISSIONS)
      .optional()
      .describe('Only endpoints with this enrollment decision (pending: duplicate machine ids awaiting an admin)'),
    limit: limitParam(),
    cursor: cursorParam(),
  })
  .strict();
export class ListEndpointsQueryDto extends createZodDto(listEndpointsQuerySchema) {}

export const duplicateSummarySchema = z.object({
  id: z.uuid(),
  hostname: z.string(),
  groupId: z.uuid(),
  groupName: z.string(),
  lastSeenAt: z.iso.datetime().nullable(),
  admission: z.enum(ADMISSIONS),
  revokedAt: z.iso.datetime().nullable(),
});

export const endpointViewSchema = z.object({
  id: z.uuid(),
  groupId: z.uuid(),
  groupName: z.string(),
  assignmentEpoch: z.number().int().describe('+1 on every move between groups (the epoch of its signed assignment)'),
  hostname: z.string(),
  platform: z.string(),
  machineId: z.string(),
  agentVersion: z.string(),
  contractVersion: z
    .number()
    .int()
    .nullable()
    .describe(
      'The policy/bundle contract its agent last reported (null: an agent from before contract reporting, or no status yet; counted as contract 1)',
    ),
  state: z.string().describe('pending | applied | failed | drifted | revoked'),
  fleetState: z
    .enum(FLEET_STATES)
    .describe(
      'The fleet state, by the rule the fleet views count and filter with: rejected, retired, revoked, pending ' +
        'approval, never checked in, stale (silent for more than 24 h), else its reported applied/failed/drifted ' +
        '(anything else pending)',
    ),
  inFleet: z
    .boolean()
    .describe("A live member of its group's fleet (admitted and not revoked): what group counts cover"),
  enrolledAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime().nullable().describe('Last check-in (status report)'),
  revokedAt: z.iso.datetime().nullable().describe('Set while revoked; only an admin re-admission clears it'),
  admission: z
    .enum(ADMISSIONS)
    .describe(
      'Enrollment decision: active (admitted), pending (a duplicate machine id awaiting an admin), rejected, ' +
        'retired (replaced by an approved duplicate)',
    ),
  duplicateOf: z.uuid().nullable().describe('For a pending duplicate: the endpoint that already holds the machine id'),
  duplicate: duplicateSummarySchema.nullable().describe('The endpoint `duplicateOf` names, when it still exists'),
  keyId: z.string().nullable().describe("The endpoint's own key (`ek1:…`); null while it uses a legacy credential"),
  appliedRevision: z.number().int().nullable(),
  appliedDigest: z.string().nullable(),
  appliedReleaseId: z.uuid().nullable(),
  appliedPolicyVersion: z.number().int().nullable(),
  targetRevision: z.number().int().nullable(),
  uploadsPending: z.number().int(),
  recordsDropped: z.number().int(),
  lastStatus: lastStatusSchema.nullable().describe('The last status report (errors, files)'),
  shadow: z
    .object({
      releaseId: z.uuid().nullable().describe('The shadow release whose layer its agent reports on disk (null: none)'),
      revision: z.number().int().nullable(),
      error: z.string().nullable().describe('Why its agent refused the last shadow bundle (null: none refused)'),
    })
    .describe(
      'The shadow layer as its agent last reported it (all null: none, or an agent older than shadow releases)',
    ),
});
export class EndpointViewDto extends createZodDto(endpointViewSchema) {}
export type EndpointView = z.infer<typeof endpointViewSchema>;

export const endpointDecisionSchema = z.object({
  endpoint: endpointViewSchema.describe('The endpoint after the decision'),
  retired: endpointViewSchema
    .nullable()
    .describe('Approve only: the endpoint it duplicated, now retired (its credential no longer works); else null'),
});
export class EndpointDecisionDto extends createZodDto(endpointDecisionSchema) {}
export type EndpointDecision = z.infer<typeof endpointDecisionSchema>;

export const moveEndpointSchema = z.object({ groupId: z.uuid().describe('The group the endpoint moves to') }).strict();
export class MoveEndpointDto extends createZodDto(moveEndpointSchema) {}

export const endpointPageSchema = z.object({ items: z.array(endpointViewSchema), nextCursor: z.string().nullable() });
export class EndpointPageDto extends createZodDto(endpointPageSchema) {}
