// Version content as the API computes it, offline: hook-core's prepareVersion (the one implementation the API uses),
// its diagnostics named by the directory's files.
import {
  type ConfigDiagnostic,
  MAX_BUNDLE_FILE_BYTES,
  MAX_BUNDLE_FILES,
  MAX_REQUIREMENTS_BYTES,
  prepareVersion,
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
export { fileSha256 as sha256Hex, versionDigest } from '@hookwarden/hook-core';

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

// Validates requirements.toml text plus managed files exactly as the API will (hook-core's prepareVersion: size,
// parser, lint and the bundle content rules), and computes the canonical TOML and digest. `tomlFile` and `fileLabel`
// name the sources in problems.
export function prepareLocalVersion(
  tomlText: string,
  files: ContentFile[],
  tomlFile: string,
  fileLabel: (path: string) => string = (p) => p,
): Prepared {
  const fileOf = (i: number): string | undefined => (files[i] ? fileLabel(files[i].path) : undefined);
  const prepared = prepareVersion({ toml: tomlText, files }, { file: tomlFile });
  if (!prepared.ok) return { ok: false, problems: prepared.errors.map((d) => problemOf(d, tomlFile, fileOf)) };
  const { toml, digest, warnings } = prepared.version;
  return {
    ok: true,
    version: {
      sourceText: tomlText,
      canonicalToml: toml,
      files,
      digest,
      warnings: warnings.map((d) => problemOf(d, tomlFile, fileOf)),
    },
  };
}
