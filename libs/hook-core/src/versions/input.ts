// The authoring request a version is prepared from, validated before any other stage runs.
import { z } from 'zod';
import type { ConfigDiagnostic } from '../types';
import { formatPath } from '../config/diagnostics';

/** One managed file as authored: its bytes (or text, UTF-8 or base64) and its POSIX mode. */
export interface VersionFileInput {
  path: string;
  content: Uint8Array | string;
  /** How string content is encoded (default `utf8`); ignored for bytes. */
  encoding?: 'utf8' | 'base64';
  mode: number;
}

/** A version's content as authored: requirements.toml text or the same policy as structured JSON, plus files. */
export interface VersionInput {
  toml?: string;
  policy?: unknown;
  files: readonly VersionFileInput[];
}

/** How a version is prepared. */
export interface PrepareOptions {
  /** The name diagnostics give the TOML source (default `requirements.toml`). */
  file?: string;
  /** Warn that the canonical TOML drops the source's comments (the API's authoring warning). */
  noteDroppedComments?: boolean;
}

/** Which form the policy came in. */
export type VersionForm = 'toml' | 'policy';

const fileInputSchema = z.object({
  path: z.string(),
  content: z.union([z.string(), z.instanceof(Uint8Array)]),
  encoding: z.enum(['utf8', 'base64']).optional(),
  mode: z.number().int().min(0).max(0o777),
});

const inputSchema = z.object({
  toml: z.string().optional(),
  policy: z.unknown().optional(),
  files: z.array(fileInputSchema),
});

const optionsSchema = z
  .object({ file: z.string().min(1).optional(), noteDroppedComments: z.boolean().optional() })
  .strict();

// Checks the request and the options before any work: exactly one form, well-typed files; the problems, located.
export function checkVersionInput(input: unknown, options: unknown): ConfigDiagnostic[] {
  const problems: ConfigDiagnostic[] = [];
  const opts = optionsSchema.safeParse(options);
  if (!opts.success) throw new TypeError(`prepareVersion options: ${opts.error.issues[0]?.message}`);
  const shape = inputSchema.safeParse(input);
  if (!shape.success) {
    for (const i of shape.error.issues.slice(0, 20)) {
      const at = i.path.filter((p): p is string | number => typeof p !== 'symbol');
      problems.push({
        severity: 'error',
        code: 'invalid_input',
        message: i.message,
        path: formatPath(at),
      });
    }
    return problems;
  }
  if ((shape.data.toml === undefined) === (shape.data.policy === undefined)) {
    problems.push({
      severity: 'error',
      code: 'invalid_input',
      message: 'give exactly one of `toml` or `policy`',
      path: '$.toml',
    });
  }
  return problems;
}
