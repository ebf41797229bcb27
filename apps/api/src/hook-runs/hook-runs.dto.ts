// Query and response shapes of the auditor hook-run API.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { hookRunApiSchema } from '../database/hook-run-columns';

const csv = z
  .string()
  .min(1)
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  );

/** Filters shared by listing, export, stats and top. */
export const hookRunFiltersSchema = z.object({
  endpointId: z.guid().optional(),
  groupId: z.guid().optional(),
  event: csv.optional().describe('event name(s), comma-separated'),
  toolName: z.string().min(1).optional(),
  decision: csv.optional().describe('decision(s), comma-separated (e.g. deny,block)'),
  status: csv
    .pipe(z.array(z.enum(['ran', 'skipped', 'failed', 'timed_out'])))
    .optional()
    .describe('ran, skipped, failed, timed_out (comma-separated)'),
  skipReason: z.string().min(1).optional(),
  hookKey: z.string().min(1).optional(),
  hookHash: z.string().min(1).optional(),
  managed: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  policyRevision: z.string().min(1).optional().describe('policy revision in force on the endpoint'),
  policyDigest: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  toolCommand: z.string().min(1).max(200).optional().describe('substring of the tool command (case-insensitive)'),
  from: z.iso.datetime({ offset: true }).optional().describe('inclusive start time'),
  to: z.iso.datetime({ offset: true }).optional().describe('exclusive end time'),
});
export type HookRunFilters = z.infer<typeof hookRunFiltersSchema>;

export const listHookRunsQuerySchema = hookRunFiltersSchema.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).optional().describe('opaque cursor from nextCursor'),
});
export class ListHookRunsQueryDto extends createZodDto(listHookRunsQuerySchema) {}

export const exportQuerySchema = hookRunFiltersSchema.extend({ format: z.enum(['ndjson', 'csv']).default('ndjson') });
export class ExportQueryDto extends createZodDto(exportQuerySchema) {}

export const statsQuerySchema = hookRunFiltersSchema.extend({ bucket: z.enum(['hour', 'day']).default('hour') });
export class StatsQueryDto extends createZodDto(statsQuerySchema) {}

export const topQuerySchema = hookRunFiltersSchema.extend({
  kind: z.enum(['failing', 'blocking']),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});
export class TopQueryDto extends createZodDto(topQuerySchema) {}

export const hookRunSchema = hookRunApiSchema;
export class HookRunDto extends createZodDto(hookRunSchema) {}

export const hookRunPageSchema = z.object({
  items: z.array(hookRunSchema),
  nextCursor: z.string().nullable(),
});
export class HookRunPageDto extends createZodDto(hookRunPageSchema) {}

const counts = z.record(z.string(), z.number());
export const statsSchema = z.object({
  bucket: z.enum(['hour', 'day']),
  buckets: z.array(
    z.object({ start: z.string(), total: z.number(), byEvent: counts, byDecision: counts, byStatus: counts }),
  ),
});
export class StatsDto extends createZodDto(statsSchema) {}

export const topSchema = z.object({
  kind: z.enum(['failing', 'blocking']),
  items: z.array(
    z.object({
      hookKey: z.string(),
      hookHash: z.string().nullable(),
      count: z.number(),
      endpoints: z.number(),
      lastAt: z.string(),
    }),
  ),
});
export class TopDto extends createZodDto(topSchema) {}

export const findingsQuerySchema = z.object({
  endpointId: z.guid().optional(),
  groupId: z.guid().optional(),
  kind: z.enum(['missing_range', 'broken_link', 'dropped', 'quarantined']).optional(),
  includeResolved: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .default(false),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).optional(),
});
export class FindingsQueryDto extends createZodDto(findingsQuerySchema) {}

export const findingSchema = z.object({
  id: z.uuid(),
  endpointId: z.uuid(),
  groupId: z.uuid().nullable(),
  kind: z.string(),
  fromSeq: z.number().nullable(),
  toSeq: z.number().nullable(),
  details: z.unknown(),
  detectedAt: z.string(),
  resolvedAt: z.string().nullable(),
});
export const findingPageSchema = z.object({ items: z.array(findingSchema), nextCursor: z.string().nullable() });
export class FindingPageDto extends createZodDto(findingPageSchema) {}
export type Finding = z.infer<typeof findingSchema>;

export const hookRunIdParamSchema = z.object({ id: z.uuid() });
export class HookRunIdParamDto extends createZodDto(hookRunIdParamSchema) {}
