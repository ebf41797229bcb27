// Request/response schemas of the agent routes (status; enrollment schemas live with enrollment).
import { createZodDto } from '../common/zod-dto';
import {
  STATUS_MAX_DIGEST_CHARS,
  STATUS_MAX_ERROR_CHARS,
  STATUS_MAX_ERRORS,
  STATUS_MAX_FILES,
  STATUS_MAX_PATH_CHARS,
} from '@hookwarden/hook-core';
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
    errors: z.array(z.string().max(STATUS_MAX_ERROR_CHARS)).max(STATUS_MAX_ERRORS).default([]),
    files: z
      .array(
        z.object({
          path: z.string().max(STATUS_MAX_PATH_CHARS),
          sha256: z.string().max(STATUS_MAX_DIGEST_CHARS).nullable(),
        }),
      )
      .max(STATUS_MAX_FILES)
      .default([])
      .describe('On-disk digest of each managed file (null: missing), requirements.toml included'),
    counters: z
      .object({
        uploadsPending: z.number().int().min(0).default(0),
        recordsDropped: z.number().int().min(0).default(0),
      })
      .default({ uploadsPending: 0, recordsDropped: 0 }),
    agentVersion: z.string().max(64).optional(),
    contractVersion: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe("The policy/bundle contract the agent's engine understands (hook-core CONTRACT_VERSION)"),
  })
  .strict();
export class StatusDto extends createZodDto(statusSchema) {}
export type StatusInput = z.infer<typeof statusSchema>;

export const statusAcceptedSchema = z.object({ accepted: z.literal(true), serverTime: z.iso.datetime() });
export class StatusAcceptedDto extends createZodDto(statusAcceptedSchema) {}
