// The plan's diff between the server's latest version and the directory's content: hook-core's diffContent (the one
// the API's version diffs use), managed files labelled `files/<path>` as they sit in the directory.
import { diffContent as diffVersions, type DiffSideFile } from '@hookwarden/hook-core';

/** One side of a file (absent side: undefined). */
export type DiffFile = DiffSideFile;

export interface FileChange {
  path: string;
  status: 'added' | 'removed' | 'modified' | 'mode_changed';
}

// Diffs the server's content (`before`, undefined for a new policy) against the directory's (`after`).
export function diffContent(
  before: { toml: string; files: DiffFile[] } | undefined,
  after: { toml: string; files: DiffFile[] },
): { text: string; changes: FileChange[] } {
  const diff = diffVersions(before, after, {
    fromLabel: 'server',
    toLabel: 'directory',
    fileLabel: (p) => `files/${p}`,
  });
  const changes: FileChange[] = [];
  for (const d of [diff.toml, ...diff.files]) {
    if (d.status !== 'unchanged') changes.push({ path: d.path, status: d.status });
  }
  return { text: diff.text, changes };
}
