// Version preparation: an authoring request in, validated canonical content out (TOML, structured form, files,
// digest), or located diagnostics. One implementation for the API (authoring) and the CLI (offline plan), in stages:
// input, source size, files, structure, parse, lint, render, digest. Pure and synchronous (no I/O).
import type { ConfigDiagnostic } from '../types';
import { MAX_REQUIREMENTS_BYTES } from '../bundle/content';
import { versionDigest } from '../bundle/version-digest';
import { lintPolicy } from '../policy/lint';
import { parsePolicyToml, type PolicyParseResult, validatePolicyObject } from '../policy/parse';
import { renderPolicyToml } from '../policy/render';
import type { PolicyDocument } from '../policy/schema';
import { findTomlComment } from '../policy/toml-values';
import { decodeVersionFiles, type PreparedFile } from './files';
import { checkVersionInput, type PrepareOptions, type VersionForm, type VersionInput } from './input';
import { checkStructure } from './structure';

/** Validated, canonical version content. */
export interface PreparedVersion {
  /** The canonical requirements.toml: exactly what endpoints receive. */
  toml: string;
  /** The same content as JSON (dates as ISO strings), as stored. */
  structured: Record<string, unknown>;
  files: PreparedFile[];
  digest: string;
  warnings: ConfigDiagnostic[];
}

/** The outcome of preparing a version: the content, or every error found (with the form, for locating them). */
export type Preparation =
  | { ok: true; form: VersionForm; version: PreparedVersion }
  | { ok: false; form: VersionForm; errors: ConfigDiagnostic[] };

const DEFAULT_FILE = 'requirements.toml';

// A size problem of requirements.toml (the source before parsing, or the canonical rendering after).
function tooLarge(what: string, bytes: number, file: string): ConfigDiagnostic {
  const message = `${what} is ${bytes} bytes; the limit is ${MAX_REQUIREMENTS_BYTES}`;
  return { severity: 'error', code: 'requirements_too_large', message, file };
}

// Drops values JSON cannot carry (dates become ISO strings) so the structured form stores as JSON.
function toJsonObject(policy: PolicyDocument): Record<string, unknown> {
  return JSON.parse(JSON.stringify(policy)) as Record<string, unknown>;
}

// Validates a version with hook-core (input, size, files, structure, schema, lint) and builds its canonical content.
export function prepareVersion(input: VersionInput, options: PrepareOptions = {}): Preparation {
  const inputErrors = checkVersionInput(input, options);
  const form: VersionForm = input.toml !== undefined ? 'toml' : 'policy';
  if (inputErrors.length > 0) return { ok: false, form, errors: inputErrors };
  const file = options.file ?? DEFAULT_FILE;
  if (form === 'toml') {
    const bytes = Buffer.byteLength(input.toml!, 'utf8');
    // Bounded work: the source is measured before it is parsed.
    if (bytes > MAX_REQUIREMENTS_BYTES)
      return { ok: false, form, errors: [tooLarge('requirements.toml', bytes, file)] };
  }
  const { files, errors: fileErrors } = decodeVersionFiles(input.files);
  if (form === 'policy') {
    const structural = checkStructure(input.policy);
    if (structural.length > 0) return { ok: false, form, errors: [...structural, ...fileErrors] };
  }
  try {
    return validateAndRender(input, form, files, fileErrors, options, file);
  } catch (err) {
    // hook-core rejects by returning diagnostics; a throw (e.g. a stack overflow on pathological input) is still the
    // document's fault, so it is reported against it.
    const message = `cannot process the document: ${(err as Error).message}`;
    return { ok: false, form, errors: [{ severity: 'error', code: 'unprocessable', message, file }, ...fileErrors] };
  }
}

// The parse, lint and render stages of prepareVersion.
function validateAndRender(
  input: VersionInput,
  form: VersionForm,
  files: PreparedFile[],
  fileErrors: ConfigDiagnostic[],
  options: PrepareOptions,
  file: string,
): Preparation {
  const parsed: PolicyParseResult =
    form === 'toml' ? parsePolicyToml(input.toml!, file) : validatePolicyObject(input.policy, file);
  if (!parsed.ok) {
    return { ok: false, form, errors: [...parsed.diagnostics.filter((d) => d.severity === 'error'), ...fileErrors] };
  }
  if (form === 'toml') {
    const structural = checkStructure(parsed.policy);
    if (structural.length > 0) return { ok: false, form, errors: [...structural, ...fileErrors] };
  }
  const sizes = new Map(files.map((f) => [f.path, f.size]));
  const lint = lintPolicy(
    parsed.policy,
    input.files.map((f) => ({ path: f.path, mode: f.mode, size: sizes.get(f.path) ?? 0 })),
    form === 'toml' ? { sourceText: input.toml!, file } : { file },
  );
  if (lint.errors.length > 0 || fileErrors.length > 0)
    return { ok: false, form, errors: [...lint.errors, ...fileErrors] };
  const toml = renderPolicyToml(parsed.policy);
  const tomlBytes = Buffer.byteLength(toml, 'utf8');
  if (tomlBytes > MAX_REQUIREMENTS_BYTES) {
    return { ok: false, form, errors: [tooLarge('the canonical requirements.toml', tomlBytes, file)] };
  }
  const warnings = [...parsed.diagnostics.filter((d) => d.severity === 'warning'), ...lint.warnings];
  const comment = form === 'toml' && options.noteDroppedComments ? findTomlComment(input.toml!) : null;
  if (comment) {
    warnings.push({
      severity: 'warning',
      code: 'comments_dropped',
      message:
        `the canonical requirements.toml that endpoints receive does not keep comments (the first is at line ` +
        `${comment.line}); every key and value is kept`,
      file,
      line: comment.line,
      column: comment.column,
    });
  }
  const digest = versionDigest(toml, files);
  return { ok: true, form, version: { toml, structured: toJsonObject(parsed.policy), files, digest, warnings } };
}
