// Request/response schemas of the agent routes (status; enrollment schemas live with enrollment).
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 hex>');

export const statusSchema = z
  .object({
    state: z.enum(['applied', 'failed', 'drifted']),
    appliedRevision: z.number().int().min(1).nullable().describe('Revision of the layer on disk (null: none yet)'),
    appliedDigest: digest.nullable().describe('Digest of the bundle whose layer is on disk'),
    targetRevision: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('Revision this report is about (the refused bundle when failed; the applied one otherwise)'),
    errors: z.array(z.string().max(2000)).max(50).default([]),
    files: z
      .array(z.object({ path: z.string().max(1024), sha256: z.string().max(80).nullable() }))
      .max(10_000)
      .default([])
      .describe('On-disk digest of each managed file (null: missing), requirements.toml included'),
    counters: z
      .object({
        uploadsPending: z.number().int().min(0).default(0),
        recordsDropped: z.number().int().min(0).default(0),
      })
      .default({ uploadsPending: 0, recordsDropped: 0 }),
    agentVersion: z.string().max(64).optional(),
  })
  .strict();
export class StatusDto extends createZodDto(statusSchema) {}
export type StatusInput = z.infer<typeof statusSchema>;

export const statusAcceptedSchema = z.object({ accepted: z.literal(true), serverTime: z.iso.datetime() });
export class StatusAcceptedDto extends createZodDto(statusAcceptedSchema) {}
