// Request/response schemas of the fleet-wide routes: the endpoints list (sort, filters, keyset pages), bulk actions,
// the overview's summary and what needs attention.
import { z } from 'zod';
import { createZodDto } from '../common/zod-dto';
import { boolParam, cursorParam, isoTime, limitParam, queryText, queryTextList } from '../common/query';
import { ADMISSIONS } from '../endpoints/admission';
import { FLEET_STATES, SORT_COLUMN_NAMES } from './fleet-state';

const csv = queryTextList(50, 200);

/** The filters of the fleet-wide endpoints list (every value checked here before it reaches SQL). */
export const fleetFiltersSchema = z.object({
  q: queryText(200).optional().describe('Part of the hostname (case-insensitive), or an endpoint id'),
  groupId: csv.pipe(z.array(z.guid())).optional().describe('group id(s), comma-separated'),
  state: csv
    .pipe(z.array(z.enum(FLEET_STATES)))
    .optional()
    .describe(`fleet state(s), comma-separated: ${FLEET_STATES.join(', ')} (stale: silent for more than 24 h)`),
  platform: csv.optional().describe('platform(s), comma-separated'),
  agentVersion: csv.optional().describe('agent version(s), comma-separated'),
  admission: csv
    .pipe(z.array(z.enum(ADMISSIONS)))
    .optional()
    .describe('enrollment decision(s), comma-separated'),
  appliedRevision: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  appliedVersion: z
    .union([z.literal('none'), z.coerce.number().int().min(0).max(2_147_483_647)])
    .optional()
    .describe('policy version number of the applied release, or `none` (nothing applied)'),
  inFleet: boolParam().optional().describe('true: only admitted, unrevoked endpoints (what the group counts cover)'),
  hasFindings: boolParam().optional().describe('true: only endpoints with open findings; false: only those without'),
  seenAfter: isoTime().optional().describe('last seen at or after (ISO 8601)'),
  seenBefore: isoTime().optional().describe('last seen before (ISO 8601; never seen counts as before)'),
});
export type FleetFilters = z.infer<typeof fleetFiltersSchema>;

export const listFleetQuerySchema = fleetFiltersSchema
  .extend({
    sort: z.enum(SORT_COLUMN_NAMES).default('hostname').describe('Sort column'),
    order: z.enum(['asc', 'desc']).default('asc'),
    limit: limitParam(),
    cursor: cursorParam(),
  })
  .strict();
export class ListFleetQueryDto extends createZodDto(listFleetQuerySchema) {}
export type ListFleetQuery = z.infer<typeof listFleetQuerySchema>;

export const fleetEndpointSchema = z.object({
  id: z.uuid(),
  hostname: z.string(),
  groupId: z.uuid(),
  groupName: z.string(),
  platform: z.string(),
  agentVersion: z.string(),
  appliedRevision: z.number().int().nullable(),
  appliedPolicyVersion: z.number().int().nullable(),
  targetRevision: z.number().int().nullable(),
  state: z.enum(FLEET_STATES).describe('Fleet state (stale: silent for more than 24 h)'),
  reportedState: z.string().describe('The state its agent last reported: pending | applied | failed | drifted'),
  admission: z.enum(ADMISSIONS),
  lastSeenAt: z.iso.datetime().nullable(),
  enrolledAt: z.iso.datetime(),
  openFindings: z.number().int().describe('Unresolved chain and enrollment findings of the endpoint'),
});
export type FleetEndpoint = z.infer<typeof fleetEndpointSchema>;

export const fleetPageSchema = z.object({
  items: z.array(fleetEndpointSchema),
  nextCursor: z.string().nullable().describe('Pass as `cursor` (same sort and filters) for the next page'),
  total: z.number().int().describe('How many endpoints match the filters (all pages)'),
});
export class FleetPageDto extends createZodDto(fleetPageSchema) {}
export type FleetPage = z.infer<typeof fleetPageSchema>;

/** Most endpoints one bulk action names. */
export const MAX_BULK = 500;
const idsSchema = z
  .array(z.guid())
  .min(1)
  .max(MAX_BULK)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
  .describe(`The endpoints (1–${MAX_BULK} ids, each once)`);

export const bulkMoveSchema = z
  .object({ ids: idsSchema, groupId: z.guid().describe('The group they move to') })
  .strict();
export class BulkMoveDto extends createZodDto(bulkMoveSchema) {}

export const bulkRevokeSchema = z.object({ ids: idsSchema }).strict();
export class BulkRevokeDto extends createZodDto(bulkRevokeSchema) {}

export const bulkResultSchema = z.object({
  changed: z.number().int().describe('Endpoints changed (each with its own audit entry)'),
  unchanged: z.number().int().describe('Endpoints already in that group, or already revoked'),
  notFound: z.array(z.uuid()).describe('Ids that name no endpoint (nothing done for them)'),
});
export class BulkResultDto extends createZodDto(bulkResultSchema) {}
export type BulkResult = z.infer<typeof bulkResultSchema>;

const namedEndpointSchema = z.object({
  id: z.uuid(),
  hostname: z.string(),
  groupId: z.uuid(),
  groupName: z.string(),
  lastSeenAt: z.iso.datetime().nullable(),
});
const attentionListSchema = z.object({
  total: z.number().int(),
  items: z.array(namedEndpointSchema).describe('The first ones by hostname (at most 10)'),
});

export const attentionSchema = z.object({
  failed: attentionListSchema.describe('Endpoints whose last apply failed'),
  stale: attentionListSchema.describe('Endpoints silent for more than 24 h'),
  neverCheckedIn: attentionListSchema.describe('Endpoints that enrolled but never reported'),
  pendingApproval: attentionListSchema.describe('Duplicate machine ids awaiting an admin'),
  rollouts: z
    .array(
      z.object({
        releaseId: z.uuid(),
        groupId: z.uuid(),
        groupName: z.string(),
        policyId: z.uuid(),
        policyName: z.string(),
        policyVersion: z.number().int(),
        revision: z.number().int(),
        status: z.enum(['rolling', 'paused']),
        pausedReason: z.string().nullable(),
        currentRing: z.number().int(),
        rings: z.array(z.number()),
        createdAt: z.iso.datetime(),
      }),
    )
    .describe('Releases still rolling or paused (paused first), with their group and policy'),
  findings: z.object({
    total: z.number().int(),
    byKind: z.array(z.object({ kind: z.string(), count: z.number().int() })),
  }),
});
export class AttentionDto extends createZodDto(attentionSchema) {}
export type Attention = z.infer<typeof attentionSchema>;

export const fleetSummarySchema = z.object({
  states: z
    .array(
      z.object({
        state: z.enum(FLEET_STATES),
        count: z.number().int(),
        inFleet: z
          .boolean()
          .describe(
            'Endpoints in this state are members of their fleet (false: pending approval, revoked, rejected, retired)',
          ),
      }),
    )
    .describe('Every fleet state'),
  groups: z
    .array(
      z.object({
        id: z.uuid(),
        name: z.string(),
        total: z.number().int().describe('Admitted, unrevoked endpoints'),
        versions: z.array(
          z.object({
            version: z.number().int().nullable().describe('Applied policy version (null: nothing applied)'),
            count: z.number().int(),
          }),
        ),
      }),
    )
    .describe('Every group by name, those without endpoints included'),
});
export class FleetSummaryDto extends createZodDto(fleetSummarySchema) {}
export type FleetSummary = z.infer<typeof fleetSummarySchema>;
