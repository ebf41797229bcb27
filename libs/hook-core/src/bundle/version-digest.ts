// The content digest of a policy version: what the API stores and shows, and what the CLI computes offline to plan
// (so a local digest equals the server's for the same content).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../trust/canonical-json';

/** A managed file as the digest sees it: its path, the sha256 (hex) of its bytes and its mode. */
export interface DigestFile {
  path: string;
  sha256: string;
  mode: number;
}

// sha256 (hex) of a managed file's bytes, as the digest and the bundle manifest name it.
export function fileSha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

// `sha256:` + sha256 of the canonical JSON of the canonical TOML and every file (path, sha256, mode; by path).
export function versionDigest(toml: string, files: readonly DigestFile[]): string {
  const list = files
    .map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return `sha256:${createHash('sha256')
    .update(canonicalJson({ toml, files: list }))
    .digest('hex')}`;
}
