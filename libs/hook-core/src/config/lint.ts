// lintText/lintFile: validate a hooks.json, config.toml or requirements.toml with located diagnostics (CLI `lint`).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ConfigDiagnostic } from '../types';
import { lintPolicy, type LintResult } from '../policy/lint';
import { parsePolicyToml } from '../policy/parse';
import { loadConfigTomlText, loadHooksJsonText } from './load-files';

export type LintKind = 'hooks.json' | 'config.toml' | 'requirements.toml';

/**
 * Diagnostic codes that mean a configured hook will not run (its handler, group, event or file is dropped). Loading
 * keeps going with a warning; lint reports them as errors (exit 2), so a broken hook never ships unnoticed.
 */
export const HOOK_DROPPING_CODES: ReadonlySet<string> = new Set([
  'invalid_handler',
  'invalid_timeout',
  'invalid_group',
  'invalid_matcher',
  'invalid_event',
  'unknown_event',
  'missing_hooks_wrapper',
  'invalid_document',
  'invalid_hooks',
]);

// Splits diagnostics by severity; hook-dropping warnings count as errors.
function split(diags: ConfigDiagnostic[]): LintResult {
  const promoted = diags.map((d) =>
    d.severity === 'warning' && HOOK_DROPPING_CODES.has(d.code) ? { ...d, severity: 'error' as const } : d,
  );
  return {
    errors: promoted.filter((d) => d.severity === 'error'),
    warnings: promoted.filter((d) => d.severity === 'warning'),
  };
}

// Which kind of file a path is, from its name (`requirements*.toml`, other `.toml`, else JSON).
export function lintKindOf(path: string): LintKind {
  const name = basename(path).toLowerCase();
  if (name.endsWith('.toml')) return name.startsWith('requirements') ? 'requirements.toml' : 'config.toml';
  return 'hooks.json';
}

// Lints file text of a given kind; `file` names it in diagnostics.
export function lintText(text: string, kind: LintKind, file: string = kind): LintResult {
  if (kind === 'hooks.json') return split(loadHooksJsonText(text, file, 'error').diagnostics);
  if (kind === 'config.toml') return split(loadConfigTomlText(text, file, 'error').diagnostics);
  const parsed = parsePolicyToml(text, file);
  if (!parsed.ok) return split(parsed.diagnostics);
  const lint = lintPolicy(parsed.policy, undefined, { sourceText: text, file });
  const extra = parsed.diagnostics.filter((d) => d.code !== 'not_interpreted');
  return { errors: lint.errors, warnings: [...extra, ...lint.warnings] };
}

// Reads and lints a file (kind inferred from its name unless given).
export function lintFile(path: string, kind: LintKind = lintKindOf(path)): LintResult {
  return lintText(readFileSync(path, 'utf8'), kind, path);
}
