// Turns an authoring request into validated version content (canonical TOML, structured form, files, digest),
// or located diagnostics. Pure and synchronous: runs before any database work, so rejections are cheap.
import {
  type ConfigDiagnostic,
  fileSha256,
  findTomlComment,
  lintPolicy,
  parsePolicyToml,
  type PolicyDocument,
  type PolicyParseResult,
  renderPolicyToml,
  MAX_REQUIREMENTS_BYTES,
  validatePolicyObject,
  versionDigest,
} from '@hookwarden/hook-core';
import { isStorableText } from '../common/text';
import type { CreateVersionInput, DiagnosticView } from './versions.dto';

/** Deepest nesting accepted in a structured policy (TOML documents are far shallower in practice). */
export const MAX_POLICY_DEPTH = 32;

export interface PreparedFile {
  path: string;
  content: Buffer;
  sha256: string;
  size: number;
  mode: number;
}

export interface PreparedVersion {
  toml: string;
  structured: Record<string, unknown>;
  files: PreparedFile[];
  digest: string;
  warnings: DiagnosticView[];
}

export type Preparation = { ok: true; version: PreparedVersion } | { ok: false; errors: DiagnosticView[] };

// A request-level problem (not inside the policy document), located by its request path.
function requestError(code: string, message: string, field: string): DiagnosticView {
  return { severity: 'error', code, message, path: field, field };
}

// Adds the request-body location to a hook-core diagnostic.
function located(d: ConfigDiagnostic, form: 'toml' | 'policy'): DiagnosticView {
  const out: DiagnosticView = { ...d };
  if (d.path?.startsWith('$.files')) out.field = d.path;
  else if (form === 'policy') out.field = d.path ? `$.policy${d.path.slice(1)}` : '$.policy';
  else out.field = '$.toml';
  if (out.path === undefined && out.line === undefined) out.path = '$';
  return out;
}

// Checks a structured value for nesting depth and strings PostgreSQL cannot store; iterative (no stack limits).
function checkStructure(root: unknown): DiagnosticView[] {
  const errors: DiagnosticView[] = [];
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: root, path: '$.policy', depth: 0 }];
  while (stack.length > 0 && errors.length < 50) {
    const { v, path, depth } = stack.pop()!;
    if (depth > MAX_POLICY_DEPTH) {
      errors.push(requestError('too_deep', `nested deeper than ${MAX_POLICY_DEPTH} levels`, path));
      continue;
    }
    if (typeof v === 'string') {
      if (!isStorableText(v)) errors.push(requestError('invalid_text', 'string has a NUL or unpaired surrogate', path));
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, path: `${path}[${i}]`, depth: depth + 1 }));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const child = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
        if (!isStorableText(k)) errors.push(requestError('invalid_text', 'key has a NUL or unpaired surrogate', child));
        stack.push({ v: x, path: child, depth: depth + 1 });
      }
    }
  }
  return errors;
}

// Decodes the managed files; their paths, modes and sizes are checked by hook-core's content rules (lintPolicy).
function prepareFiles(input: CreateVersionInput['files']): { files: PreparedFile[]; errors: DiagnosticView[] } {
  const errors: DiagnosticView[] = [];
  const files: PreparedFile[] = [];
  input.forEach((f, i) => {
    const at = `$.files[${i}]`;
    let content: Buffer;
    if (f.encoding === 'base64') {
      if (f.content.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(f.content)) {
        errors.push(requestError('invalid_base64', 'content is not valid base64', `${at}.content`));
        return;
      }
      content = Buffer.from(f.content, 'base64');
    } else {
      content = Buffer.from(f.content, 'utf8');
    }
    files.push({
      path: f.path,
      content,
      sha256: fileSha256(content),
      size: content.length,
      mode: f.mode,
    });
  });
  return { files, errors };
}

// Drops values JSON cannot carry (dates become ISO strings) so the structured form stores as jsonb.
function toJsonObject(policy: PolicyDocument): Record<string, unknown> {
  return JSON.parse(JSON.stringify(policy)) as Record<string, unknown>;
}

// Validates an authoring request with hook-core (schema + lint) and builds the version content.
export function prepareVersion(input: CreateVersionInput): Preparation {
  const form = input.toml !== undefined ? 'toml' : 'policy';
  const { files, errors: fileErrors } = prepareFiles(input.files);
  if (form === 'policy') {
    const structural = checkStructure(input.policy);
    if (structural.length > 0) return { ok: false, errors: [...structural, ...fileErrors] };
  }
  try {
    return validateAndRender(input, form, files, fileErrors);
  } catch (err) {
    // hook-core rejects by returning diagnostics; a throw (e.g. a stack overflow on pathological input) is still the
    // document's fault, so it is reported against it rather than as a server error.
    const field = form === 'toml' ? '$.toml' : '$.policy';
    const message = `cannot process the document: ${(err as Error).message}`;
    return { ok: false, errors: [requestError('unprocessable', message, field), ...fileErrors] };
  }
}

// The hook-core part of prepareVersion: parse/validate, lint, render.
function validateAndRender(
  input: CreateVersionInput,
  form: 'toml' | 'policy',
  files: PreparedFile[],
  fileErrors: DiagnosticView[],
): Preparation {
  const parsed: PolicyParseResult = form === 'toml' ? parsePolicyToml(input.toml!) : validatePolicyObject(input.policy);
  if (!parsed.ok) {
    return {
      ok: false,
      errors: [...parsed.diagnostics.filter((d) => d.severity === 'error').map((d) => located(d, form)), ...fileErrors],
    };
  }
  if (form === 'toml') {
    const structural = checkStructure(parsed.policy).map((d) => ({ ...d, field: '$.toml' }));
    if (structural.length > 0) return { ok: false, errors: [...structural, ...fileErrors] };
  }
  const sizes = new Map(files.map((f) => [f.path, f.size]));
  const lint = lintPolicy(
    parsed.policy,
    input.files.map((f) => ({ path: f.path, mode: f.mode, size: sizes.get(f.path) ?? 0 })),
    form === 'toml' ? { sourceText: input.toml! } : {},
  );
  const lintErrors = lint.errors.map((d) => located(d, form));
  if (lintErrors.length > 0 || fileErrors.length > 0) return { ok: false, errors: [...lintErrors, ...fileErrors] };
  const toml = renderPolicyToml(parsed.policy);
  const tomlBytes = Buffer.byteLength(toml, 'utf8');
  if (tomlBytes > MAX_REQUIREMENTS_BYTES) {
    const message = `the canonical requirements.toml is ${tomlBytes} bytes; the limit is ${MAX_REQUIREMENTS_BYTES}`;
    return {
      ok: false,
      errors: [requestError('requirements_too_large', message, form === 'toml' ? '$.toml' : '$.policy')],
    };
  }
  const warnings = [...parsed.diagnostics.filter((d) => d.severity === 'warning'), ...lint.warnings].map((d) =>
    located(d, form),
  );
  const comment = form === 'toml' ? findTomlComment(input.toml!) : null;
  if (comment) {
    warnings.push({
      severity: 'warning',
      code: 'comments_dropped',
      message:
        `the canonical requirements.toml that endpoints receive does not keep comments (the first is at line ` +
        `${comment.line}); every key and value is kept`,
      file: 'requirements.toml',
      line: comment.line,
      column: comment.column,
      field: '$.toml',
    });
  }
  return {
    ok: true,
    version: { toml, structured: toJsonObject(parsed.policy), files, digest: versionDigest(toml, files), warnings },
  };
}
