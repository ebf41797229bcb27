// Version content as the API computes it, offline: hook-core validation (parsePolicyToml + lintPolicy, the same
// validator the API and the agent use), the canonical TOML and the content digest.
import { createHash } from 'node:crypto';
import {
  canonicalJson,
  type ConfigDiagnostic,
  lintPolicy,
  parsePolicyToml,
  renderPolicyToml,
  unsafeFilePath,
} from '@hookwarden/hook-core';
import type { Problem } from '../cli/errors';

/** API limits on a version's content (see the API's versions.dto.ts). */
export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_FILES = 200;
export const MAX_TOML_BYTES = 1024 * 1024;

/** A managed file as shipped into managed_dir. */
export interface ContentFile {
  path: string;
  content: Buffer;
  mode: number;
  sha256: string;
}

/** Validated, canonical version content. */
export interface LocalVersion {
  /** The admin's requirements.toml text (sent as is: the server's warnings then point into it). */
  sourceText: string;
  canonicalToml: string;
  files: ContentFile[];
  digest: string;
  warnings: Problem[];
}

export type Prepared = { ok: true; version: LocalVersion } | { ok: false; problems: Problem[] };

// sha256 (hex) of a buffer.
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

// The content digest: sha256 of the canonical JSON of the TOML and every file's path, sha256 and mode (the
// formula of the API's version-content.ts, so a local digest equals the server's for the same content).
export function versionDigest(toml: string, files: Array<{ path: string; sha256: string; mode: number }>): string {
  const list = files
    .map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return `sha256:${sha256Hex(canonicalJson({ toml, files: list }))}`;
}

// A hook-core diagnostic as a problem in `file`.
function problemOf(d: ConfigDiagnostic, file: string): Problem {
  return {
    severity: d.severity,
    code: d.code,
    message: d.message.replace(/ \(line \d+, column \d+\)$/, ''),
    file,
    line: d.line,
    column: d.column,
    path: d.path,
  };
}

// Validates requirements.toml text plus managed files exactly as the API will, and computes the version's
// canonical TOML and digest. `tomlFile` and `fileLabel` name the sources in problems.
export function prepareLocalVersion(
  tomlText: string,
  files: ContentFile[],
  tomlFile: string,
  fileLabel: (path: string) => string = (p) => p,
): Prepared {
  const problems: Problem[] = [];
  if (Buffer.byteLength(tomlText, 'utf8') > MAX_TOML_BYTES) {
    return {
      ok: false,
      problems: [{ file: tomlFile, message: `larger than ${MAX_TOML_BYTES} bytes`, code: 'too_large' }],
    };
  }
  if (files.length > MAX_FILES) {
    problems.push({
      file: tomlFile,
      message: `${files.length} managed files; the limit is ${MAX_FILES}`,
      code: 'too_many_files',
    });
  }
  const seen = new Set<string>();
  for (const f of files) {
    const bad = unsafeFilePath(f.path);
    if (bad)
      problems.push({ file: fileLabel(f.path), message: `unsafe managed file path: ${bad}`, code: 'unsafe_file_path' });
    const key = f.path.normalize('NFC');
    if (seen.has(key))
      problems.push({
        file: fileLabel(f.path),
        message: 'duplicate path (after Unicode normalization)',
        code: 'duplicate_file_path',
      });
    seen.add(key);
    if (f.content.length > MAX_FILE_BYTES) {
      problems.push({
        file: fileLabel(f.path),
        message: `${f.content.length} bytes; the limit is ${MAX_FILE_BYTES}`,
        code: 'file_too_large',
      });
    }
  }
  let parsed;
  try {
    parsed = parsePolicyToml(tomlText, tomlFile);
  } catch (err) {
    return {
      ok: false,
      problems: [...problems, { file: tomlFile, message: `cannot process: ${(err as Error).message}` }],
    };
  }
  if (!parsed.ok) {
    return {
      ok: false,
      problems: [
        ...problems,
        ...parsed.diagnostics.filter((d) => d.severity === 'error').map((d) => problemOf(d, tomlFile)),
      ],
    };
  }
  const lint = lintPolicy(
    parsed.policy,
    files.map((f) => ({ path: f.path, mode: f.mode, size: f.content.length })),
    { sourceText: tomlText, file: tomlFile },
  );
  problems.push(...lint.errors.filter((d) => d.code !== 'unsafe_file_path').map((d) => problemOf(d, tomlFile)));
  if (problems.length > 0) return { ok: false, problems };
  const canonicalToml = renderPolicyToml(parsed.policy);
  const warnings = [...parsed.diagnostics.filter((d) => d.severity === 'warning'), ...lint.warnings].map((d) =>
    problemOf(d, tomlFile),
  );
  return {
    ok: true,
    version: { sourceText: tomlText, canonicalToml, files, digest: versionDigest(canonicalToml, files), warnings },
  };
}
