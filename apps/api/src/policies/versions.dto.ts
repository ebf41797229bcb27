// Request/response schemas of policy versions: authoring (TOML or structured JSON + managed files), reads, diffs.
import { createZodDto } from '../common/zod-dto';
import {
  MAX_BUNDLE_FILE_BYTES,
  MAX_BUNDLE_FILES,
  MAX_REQUIREMENTS_BYTES,
  PolicyDocumentSchema,
} from '@hookwarden/hook-core';
import { z } from 'zod';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { freeText } from '../common/text';

// The bundle limits are hook-core's content rules (the agent enforces the same).
export const MAX_FILE_BYTES = MAX_BUNDLE_FILE_BYTES;
export const MAX_FILES = MAX_BUNDLE_FILES;
export const MAX_TOML_BYTES = MAX_REQUIREMENTS_BYTES;

export const versionFileInputSchema = z
  .object({
    path: z.string().min(1).max(1024).describe('Path relative to managed_dir, `/`-separated'),
    content: z
      .string()
      .max(Math.ceil((MAX_FILE_BYTES * 4) / 3) + 4)
      .describe('File content: UTF-8 text, or base64 with encoding "base64"'),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
    mode: z
      .number()
      .int()
      .min(0)
      .max(0o777)
      .default(0o644)
      .describe('POSIX permission bits as an integer, e.g. 493 (0o755) or 420 (0o644)'),
  })
  .strict();

export const createVersionSchema = z
  .object({
    toml: z.string().max(MAX_TOML_BYTES).optional().describe('requirements.toml text (give this or `policy`)'),
    policy: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The same content as structured JSON (give this or `toml`)'),
    files: z.array(versionFileInputSchema).max(MAX_FILES).default([]).describe('Files shipped into managed_dir'),
    message: freeText(2000).default('').describe('What changed and why'),
    baseVersion: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The version this edit is based on (0 for the first); or send If-Match: "<digest>"'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.toml === undefined) === (v.policy === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['toml'], message: 'give exactly one of `toml` or `policy`' });
    }
  });
export class CreateVersionDto extends createZodDto(createVersionSchema) {}
export type CreateVersionInput = z.infer<typeof createVersionSchema>;

export const diagnosticSchema = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  file: z.string().optional(),
  path: z.string().optional().describe('JSON path inside the policy document (or the request for files)'),
  field: z.string().optional().describe('Where in the request body the problem is'),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
export type DiagnosticView = z.infer<typeof diagnosticSchema>;

export const validationResultSchema = z.object({
  ok: z.boolean().describe('true when a version with this content would be accepted'),
  errors: z.array(diagnosticSchema).describe('Every problem that would reject it (same diagnostics as a 400)'),
  warnings: z.array(diagnosticSchema).describe('Lint warnings a new version would store'),
  digest: z.string().nullable().describe('The digest the version would get (null when not ok)'),
  toml: z.string().nullable().describe('The canonical requirements.toml it would store (null when not ok)'),
});
export type ValidationResult = z.infer<typeof validationResultSchema>;
export class ValidationResultDto extends createZodDto(validationResultSchema) {}

export const versionFileViewSchema = z.object({
  path: z.string(),
  sha256: z.string(),
  size: z.number().int(),
  mode: z.number().int(),
  content: z.string().optional().describe('The file content, base64 (only with ?withContent=true)'),
  encoding: z
    .literal('base64')
    .optional()
    .describe('How `content` is encoded (always base64; present with content, so a file can be posted back as is)'),
});

export const versionSummarySchema = z.object({
  id: z.uuid(),
  policyId: z.uuid(),
  number: z.number().int(),
  digest: z.string().describe('sha256 over the canonical TOML and every file (path, sha256, mode)'),
  message: z.string(),
  authorId: z.string().nullable(),
  authorName: z.string(),
  createdAt: z.iso.datetime(),
  warnings: z.array(diagnosticSchema),
  fileCount: z.number().int(),
});
export type VersionSummary = z.infer<typeof versionSummarySchema>;
export class VersionPageDto extends createZodDto(pageSchema(versionSummarySchema)) {}

export const versionViewSchema = versionSummarySchema.extend({
  toml: z.string().describe('Canonical requirements.toml: exactly what endpoints receive'),
  policy: PolicyDocumentSchema.describe('The same content as structured JSON'),
  files: z.array(versionFileViewSchema),
});
export type VersionView = z.infer<typeof versionViewSchema>;
export class VersionViewDto extends createZodDto(versionViewSchema) {}

export const versionParamsSchema = z.object({ id: z.uuid(), n: z.coerce.number().int().min(1).max(2_000_000_000) });
export class VersionParamsDto extends createZodDto(versionParamsSchema) {}

export const diffParamsSchema = z.object({
  id: z.uuid(),
  a: z.coerce.number().int().min(1).max(2_000_000_000),
  b: z.coerce.number().int().min(1).max(2_000_000_000),
});
export class DiffParamsDto extends createZodDto(diffParamsSchema) {}

export const diffQuerySchema = z.object({
  format: z.enum(['json', 'text']).default('json').describe('json: per-file patches; text: one text/x-diff'),
  context: z.coerce.number().int().min(0).max(100).default(3).describe('Context lines'),
});
export class DiffQueryDto extends createZodDto(diffQuerySchema) {}

export const fileDiffSchema = z.object({
  path: z.string().describe('`requirements.toml` or a managed file path'),
  status: z.enum(['added', 'removed', 'modified', 'mode_changed', 'unchanged']),
  oldMode: z.number().int().nullable(),
  newMode: z.number().int().nullable(),
  binary: z.boolean(),
  patch: z.string().describe('Unified diff (empty when unchanged)'),
});
export const diffViewSchema = z.object({
  policyId: z.uuid(),
  from: z.number().int(),
  to: z.number().int(),
  fromDigest: z.string(),
  toDigest: z.string(),
  toml: fileDiffSchema,
  files: z.array(fileDiffSchema).describe('Every added, removed or changed file'),
});
export type DiffView = z.infer<typeof diffViewSchema>;
export type FileDiff = z.infer<typeof fileDiffSchema>;
export class DiffViewDto extends createZodDto(diffViewSchema) {}

export const listVersionsQuerySchema = paginationQuerySchema;
export class ListVersionsQueryDto extends createZodDto(listVersionsQuerySchema) {}

export const getVersionQuerySchema = z.object({
  withContent: z.enum(['true', 'false']).default('false').describe('Include file contents (base64)'),
});
export class GetVersionQueryDto extends createZodDto(getVersionQuerySchema) {}
