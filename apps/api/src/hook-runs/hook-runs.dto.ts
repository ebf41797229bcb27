// Query and response shapes of the auditor hook-run API.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { cursorParam } from '../common/pagination';
import { boolParam, isoTime, limitParam, queryText, queryTextList, uuidParam } from '../common/query';
import { hookRunApiSchema } from '../database/hook-run-columns';
import { DUPLICATE_MACHINE_ID } from '../endpoints/admission';

const csv = queryTextList(20, 200);

/** Filters shared by listing, export, stats and top (every value checked here before it can reach SQL). */
export const hookRunFiltersSchema = z.object({
  endpointId: uuidParam().optional(),
  groupId: uuidParam().optional(),
  event: csv.optional().describe('event name(s), comma-separated'),
  toolName: queryText().optional(),
  decision: csv.optional().describe('decision(s), comma-separated (e.g. deny,block)'),
  status: csv
    .pipe(z.array(z.enum(['ran', 'skipped', 'failed', 'timed_out'])))
    .optional()
    .describe('ran, skipped, failed, timed_out (comma-separated)'),
  skipReason: queryText().optional(),
  hookKey: queryText(1000).optional(),
  hookHash: queryText().optional(),
  managed: boolParam().optional(),
  policyRevision: queryText().optional().describe('policy revision in force on the endpoint'),
  policyDigest: queryText().optional(),
  sessionId: queryText().optional(),
  toolCommand: queryText(200).optional().describe('substring of the tool command (case-insensitive)'),
  shadowReleaseId: queryText().optional().describe("runs of this shadow release's layer (observe mode: never applied)"),
  from: isoTime().optional().describe('inclusive start time (ISO 8601, 1970..9000)'),
  to: isoTime().optional().describe('exclusive end time (ISO 8601, 1970..9000)'),
});
export type HookRunFilters = z.infer<typeof hookRunFiltersSchema>;

export const listHookRunsQuerySchema = hookRunFiltersSchema.extend({
  limit: limitParam(),
  cursor: cursorParam(),
});
export class ListHookRunsQueryDto extends createZodDto(listHookRunsQuerySchema) {}

export const exportQuerySchema = hookRunFiltersSchema.extend({ format: z.enum(['ndjson', 'csv']).default('ndjson') });
export class ExportQueryDto extends createZodDto(exportQuerySchema) {}

export const statsQuerySchema = hookRunFiltersSchema.extend({ bucket: z.enum(['hour', 'day']).default('hour') });
export class StatsQueryDto extends createZodDto(statsQuerySchema) {}

export const topQuerySchema = hookRunFiltersSchema.extend({
  kind: z.enum(['failing', 'blocking']),
  limit: limitParam(10, 100),
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
  endpointId: uuidParam().optional(),
  groupId: uuidParam().optional(),
  kind: z
    .enum(['missing_range', 'broken_link', 'dropped', 'quarantined', 'unserved_revision', DUPLICATE_MACHINE_ID])
    .optional(),
  includeResolved: boolParam().default(false),
  limit: limitParam(),
  cursor: cursorParam(),
});
export class FindingsQueryDto extends createZodDto(findingsQuerySchema) {}

// What each kind of finding records (as the ingest and enrollment write it); further keys may be added later.
const findingCommon = {
  id: z.uuid(),
  endpointId: z.uuid(),
  groupId: z.uuid().nullable(),
  fromSeq: z.number().nullable(),
  toSeq: z.number().nullable(),
  detectedAt: z.string(),
  resolvedAt: z.string().nullable(),
};
const findingOf = <K extends string, D extends z.ZodRawShape>(kind: K, details: D, what: string) =>
  z.object({ ...findingCommon, kind: z.literal(kind), details: z.looseObject(details).describe(what) });

export const findingSchema = z.discriminatedUnion('kind', [
  findingOf(
    'missing_range',
    {
      count: z.number().describe('Records missing from the chain'),
      resolution: z.string().optional().describe('Why it was resolved (late records arrived)'),
    },
    'The gap fromSeq..toSeq',
  ),
  findingOf(
    'broken_link',
    { expectedPrevHash: z.string().nullable(), foundPrevHash: z.string().nullable() },
    'The record at toSeq does not link to the one before it',
  ),
  findingOf(
    'dropped',
    { count: z.number(), reason: z.string() },
    'Records the endpoint dropped before sending (spool size cap)',
  ),
  findingOf(
    'quarantined',
    {
      recordId: z.string().nullable(),
      error: z.string(),
      sqlstate: z.string().nullable(),
      quarantineId: z.string(),
    },
    'A record PostgreSQL refused, kept byte for byte in quarantine',
  ),
  findingOf(
    'unserved_revision',
    {
      revision: z.union([z.string(), z.number()]).nullable(),
      count: z.number(),
      otherRevisions: z.number().optional(),
      reason: z.string(),
      lastSeenAt: z.string().optional(),
    },
    'Records claiming a policy revision the endpoint was never served',
  ),
  findingOf(
    DUPLICATE_MACHINE_ID,
    {
      machineId: z.string(),
      duplicateOf: z.string().describe('The endpoint that already held the machine id'),
      hostname: z.string(),
      platform: z.string(),
    },
    'An enrollment claimed a known machine id without proof of its key',
  ),
]);
export const findingPageSchema = z.object({ items: z.array(findingSchema), nextCursor: z.string().nullable() });
export class FindingPageDto extends createZodDto(findingPageSchema) {}
export type Finding = z.infer<typeof findingSchema>;

export const hookRunIdParamSchema = z.object({ id: uuidParam() });
export class HookRunIdParamDto extends createZodDto(hookRunIdParamSchema) {}

export const hookRunGetQuerySchema = z.object({
  endpointId: uuidParam()
    .optional()
    .describe('The endpoint that uploaded the run (a record is keyed by endpoint and id; needed when ids collide)'),
});
export class HookRunGetQueryDto extends createZodDto(hookRunGetQuerySchema) {}
