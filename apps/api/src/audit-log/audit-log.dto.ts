// Request/response schemas of the admin audit-log routes.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { pageSchema, paginationQuerySchema } from '../common/pagination';

export const auditEntrySchema = z.object({
  seq: z.string().describe('Position in the chain (decimal string)'),
  id: z.uuid(),
  at: z.iso.datetime(),
  actorId: z.string().nullable(),
  actorName: z.string(),
  role: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  beforeDigest: z.string().nullable(),
  afterDigest: z.string().nullable(),
  details: z.unknown(),
  requestId: z.string().nullable(),
  clientIp: z.string().nullable(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
export class AuditEntryPageDto extends createZodDto(pageSchema(auditEntrySchema)) {}

export const auditFilterSchema = z.object({
  action: z.string().max(200).optional().describe('Exact action, e.g. `policy.version.create`'),
  actionPrefix: z.string().max(200).optional().describe('Action prefix, e.g. `group.`'),
  actor: z.string().max(200).optional().describe('Actor id (token or endpoint id) or actor name'),
  targetType: z.string().max(100).optional(),
  targetId: z.string().max(200).optional(),
  from: z.iso.datetime({ offset: true }).optional().describe('Entries at or after this time'),
  to: z.iso.datetime({ offset: true }).optional().describe('Entries before this time'),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const listAuditQuerySchema = paginationQuerySchema.extend(auditFilterSchema.shape).extend({
  format: z
    .enum(['json', 'ndjson', 'csv'])
    .default('json')
    .describe('json: one page; ndjson/csv: every matching entry streamed, oldest first (limit/cursor ignored)'),
});
export class ListAuditQueryDto extends createZodDto(listAuditQuerySchema) {}

export const verifyResultSchema = z.object({
  ok: z.boolean(),
  checked: z.number().int().describe('Entries checked'),
  firstBrokenSeq: z.string().optional().describe('Sequence number of the first entry whose hash or link is wrong'),
  reason: z.string().optional(),
});
export type VerifyResult = z.infer<typeof verifyResultSchema>;
export class VerifyResultDto extends createZodDto(verifyResultSchema) {}
