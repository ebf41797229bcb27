// Authoring requests as version content: hook-core's prepareVersion (the one implementation the CLI uses too), its
// diagnostics located in the request body (`field`) for the API's answers.
import { type ConfigDiagnostic, prepareVersion as prepareContent, type PreparedVersion } from '@hookwarden/hook-core';
import type { CreateVersionInput, DiagnosticView } from './versions.dto';

/** Validated version content with request-located warnings. */
export type ApiPreparedVersion = Omit<PreparedVersion, 'warnings'> & { warnings: DiagnosticView[] };

export type Preparation = { ok: true; version: ApiPreparedVersion } | { ok: false; errors: DiagnosticView[] };

// Adds the request-body location to a hook-core diagnostic.
function located(d: ConfigDiagnostic, form: 'toml' | 'policy'): DiagnosticView {
  const out: DiagnosticView = { ...d };
  if (d.path?.startsWith('$.files')) out.field = d.path;
  else if (form === 'policy') out.field = d.path ? `$.policy${d.path.slice(1)}` : '$.policy';
  else out.field = '$.toml';
  if (out.path === undefined && out.line === undefined) out.path = '$';
  return out;
}

// Validates an authoring request with hook-core (size, files, structure, schema, lint) and builds the version content.
export function prepareVersion(input: CreateVersionInput): Preparation {
  const prepared = prepareContent(input, { noteDroppedComments: true });
  if (!prepared.ok) return { ok: false, errors: prepared.errors.map((d) => located(d, prepared.form)) };
  const { warnings, ...version } = prepared.version;
  return { ok: true, version: { ...version, warnings: warnings.map((d) => located(d, prepared.form)) } };
}
