// Request/response schemas of the admin endpoint routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { cursorParam, limitParam, queryText, uuidParam } from '../common/query';

export const listEndpointsQuerySchema = z
  .object({
    groupId: uuidParam().optional(),
    state: z.enum(['pending', 'applied', 'failed', 'drifted', 'revoked']).optional(),
    platform: queryText(32).optional(),
    limit: limitParam(),
    cursor: cursorParam(),
  })
  .strict();
export class ListEndpointsQueryDto extends createZodDto(listEndpointsQuerySchema) {}

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
  enrolledAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime().nullable().describe('Last check-in (status report)'),
  revokedAt: z.iso.datetime().nullable(),
  appliedRevision: z.number().int().nullable(),
  appliedDigest: z.string().nullable(),
  appliedReleaseId: z.uuid().nullable(),
  appliedPolicyVersion: z.number().int().nullable(),
  targetRevision: z.number().int().nullable(),
  uploadsPending: z.number().int(),
  recordsDropped: z.number().int(),
  lastStatus: z.unknown().nullable().describe('The last status report (errors, files)'),
});
export class EndpointViewDto extends createZodDto(endpointViewSchema) {}
export type EndpointView = z.infer<typeof endpointViewSchema>;

export const moveEndpointSchema = z.object({ groupId: z.uuid().describe('The group the endpoint moves to') }).strict();
export class MoveEndpointDto extends createZodDto(moveEndpointSchema) {}

export const endpointPageSchema = z.object({ items: z.array(endpointViewSchema), nextCursor: z.string().nullable() });
export class EndpointPageDto extends createZodDto(endpointPageSchema) {}
