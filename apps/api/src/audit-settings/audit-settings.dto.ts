// Output-capture policy of a group's endpoints (applied by the agent before records leave the endpoint).
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

export const captureModes = ['none', 'digests', 'excerpts'] as const;

export const auditSettingsSchema = z.object({
  capture: z
    .enum(captureModes)
    .describe('none: no output; digests: sha256 only; excerpts: bounded excerpts, redacted, plus digests'),
  maxExcerptBytes: z.number().int().min(0).max(65_536),
  redactPatterns: z
    .array(
      z
        .string()
        .min(1)
        .max(500)
        .refine((s) => {
          try {
            new RegExp(s, 'g');
            return true;
          } catch {
            return false;
          }
        }, 'not a valid regular expression'),
    )
    .max(100)
    .describe('extra JavaScript regular expressions whose matches are replaced by [REDACTED]'),
  useDefaultRedact: z.boolean().describe('also apply the built-in secret and token patterns'),
});
export class AuditSettingsDto extends createZodDto(auditSettingsSchema) {}
export type AuditSettings = z.infer<typeof auditSettingsSchema>;

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = {
  capture: 'excerpts',
  maxExcerptBytes: 2048,
  redactPatterns: [],
  useDefaultRedact: true,
};

export const groupIdParamSchema = z.object({ id: z.uuid() });
export class GroupIdParamDto extends createZodDto(groupIdParamSchema) {}
