// Version content as the API computes it, offline: hook-core validation (parsePolicyToml + lintPolicy, the same
// validator the API and the agent use), the canonical TOML and the content digest.
import {
  type ConfigDiagnostic,
  lintPolicy,
  MAX_BUNDLE_FILE_BYTES,
  MAX_BUNDLE_FILES,
  MAX_REQUIREMENTS_BYTES,
  parsePolicyToml,
  renderPolicyToml,
  versionDigest,
} from '@hookwarden/hook-core';
import type { Problem } from '../cli/errors';

/** Limits on a version's content: hook-core's bundle contract (the API and the agent enforce the same). */
export {
  MAX_BUNDLE_FILE_BYTES as MAX_FILE_BYTES,
  MAX_BUNDLE_FILES as MAX_FILES,
  MAX_REQUIREMENTS_BYTES as MAX_TOML_BYTES,
};

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

/** The digest and file hash are hook-core's (the formula the API stores). */
export { fileSha256 as sha256Hex } from '@hookwarden/hook-core';
export { versionDigest };

// A hook-core diagnostic as a problem: in the managed file it names (`$.files[i]…`), else in `file`.
function problemOf(d: ConfigDiagnostic, file: string, fileOf: (index: number) => string | undefined): Problem {
  const index = /^\$\.files\[(\d+)\]/.exec(d.path ?? '')?.[1];
  const managed = index === undefined ? undefined : fileOf(Number(index));
  return {
    severity: d.severity,
    code: d.code,
    message: d.message.replace(/ \(line \d+, column \d+\)$/, ''),
    file: managed ?? file,
    ...(managed ? {} : { line: d.line, column: d.column }),
    path: d.path,
  };
}

// Validates requirements.toml text plus managed files exactly as the API will (hook-core's parser, lint and bundle
// content rules: paths, modes, sizes, counts), and computes the version's canonical TOML and digest. `tomlFile` and
// `fileLabel` name the sources in problems.
export function prepareLocalVersion(
  tomlText: string,
  files: ContentFile[],
  tomlFile: string,
  fileLabel: (path: string) => string = (p) => p,
): Prepared {
  // Bounded work before parsing; the content rules below check the same limit for the record.
  if (Buffer.byteLength(tomlText, 'utf8') > MAX_REQUIREMENTS_BYTES) {
    return {
      ok: false,
      problems: [{ file: tomlFile, message: `larger than ${MAX_REQUIREMENTS_BYTES} bytes`, code: 'too_large' }],
    };
  }
  const fileOf = (i: number): string | undefined => (files[i] ? fileLabel(files[i].path) : undefined);
  const problems: Problem[] = [];
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
        ...parsed.diagnostics.filter((d) => d.severity === 'error').map((d) => problemOf(d, tomlFile, fileOf)),
      ],
    };
  }
  const lint = lintPolicy(
    parsed.policy,
    files.map((f) => ({ path: f.path, mode: f.mode, size: f.content.length })),
    { sourceText: tomlText, file: tomlFile },
  );
  problems.push(...lint.errors.map((d) => problemOf(d, tomlFile, fileOf)));
  if (problems.length > 0) return { ok: false, problems };
  const canonicalToml = renderPolicyToml(parsed.policy);
  const warnings = [...parsed.diagnostics.filter((d) => d.severity === 'warning'), ...lint.warnings].map((d) =>
    problemOf(d, tomlFile, fileOf),
  );
  return {
    ok: true,
    version: { sourceText: tomlText, canonicalToml, files, digest: versionDigest(canonicalToml, files), warnings },
  };
}
