// The zod schema of the capture settings (a group's audit settings): the API validates them with it, the agent reads
// its cached copy with it. Apart from the engine's dispatch path, which takes settings already parsed.
import { z } from 'zod';
import {
  CAPTURE_MODES,
  MAX_EXCERPT_BYTES_LIMIT,
  MAX_REDACT_PATTERN_CHARS,
  MAX_REDACT_PATTERNS,
} from './capture-limits';
import { redactPatternError } from './capture';

/** The capture settings (a group's audit settings): mode, excerpt bound, extra patterns, default patterns on/off. */
export const captureSettingsSchema = z.object({
  capture: z
    .enum(CAPTURE_MODES)
    .describe('none: no output; digests: sha256 only; excerpts: bounded excerpts, redacted, plus digests'),
  maxExcerptBytes: z.number().int().min(0).max(MAX_EXCERPT_BYTES_LIMIT),
  redactPatterns: z
    .array(
      z
        .string()
        .min(1)
        .max(MAX_REDACT_PATTERN_CHARS)
        .refine((s) => redactPatternError(s) === null, 'not a valid regular expression (RE2 syntax)'),
    )
    .max(MAX_REDACT_PATTERNS)
    .describe('extra regular expressions (RE2 syntax) whose matches are replaced by [REDACTED]'),
  useDefaultRedact: z.boolean().describe('also apply the built-in secret and token patterns'),
  inventoryCommands: z
    .enum(['verbatim', 'program', 'hash', 'none'])
    .default('program')
    .describe(
      'what hook inventories report of commands: verbatim (redacted), program (first word + sha256), hash (sha256 only), none',
    ),
});
export type CaptureSettings = z.infer<typeof captureSettingsSchema>;
