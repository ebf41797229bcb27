// Unified diffs between two versions: the canonical TOML and every added, removed or changed managed file.
import { createTwoFilesPatch } from 'diff';
import type { DiffView, FileDiff } from './versions.dto';

export interface DiffSide {
  number: number;
  digest: string;
  toml: string;
  files: Array<{ path: string; sha256: string; mode: number; content: Uint8Array }>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// The file's text, or null when it is not valid UTF-8 (or contains NUL: treated as binary like git does).
function asText(content: Uint8Array): string | null {
  try {
    const text = utf8.decode(content);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

const mode = (m: number): string => `0${m.toString(8)}`;

// Diff of one path between two sides (either side may be missing).
function fileDiff(
  path: string,
  a: DiffSide['files'][number] | undefined,
  b: DiffSide['files'][number] | undefined,
  from: number,
  to: number,
  context: number,
): FileDiff {
  const status: FileDiff['status'] = !a
    ? 'added'
    : !b
      ? 'removed'
      : a.sha256 !== b.sha256
        ? 'modified'
        : a.mode !== b.mode
          ? 'mode_changed'
          : 'unchanged';
  const oldText = a ? asText(a.content) : '';
  const newText = b ? asText(b.content) : '';
  const binary = oldText === null || newText === null;
  let patch = '';
  if (status !== 'unchanged') {
    const header =
      status === 'mode_changed' || (a && b && a.mode !== b.mode)
        ? `old mode ${mode(a!.mode)}\nnew mode ${mode(b!.mode)}\n`
        : status === 'added'
          ? `new file mode ${mode(b!.mode)}\n`
          : status === 'removed'
            ? `deleted file mode ${mode(a!.mode)}\n`
            : '';
    const oldName = a ? `a/${path}` : '/dev/null';
    const newName = b ? `b/${path}` : '/dev/null';
    const body =
      status === 'mode_changed'
        ? ''
        : binary
          ? `Binary files ${oldName} and ${newName} differ\n`
          : createTwoFilesPatch(oldName, newName, oldText ?? '', newText ?? '', `v${from}`, `v${to}`, { context })
              .split('\n')
              .slice(1)
              .join('\n');
    patch = `diff --hookwarden a/${path} b/${path}\n${header}${body}`;
  }
  return { path, status, oldMode: a?.mode ?? null, newMode: b?.mode ?? null, binary, patch };
}

// Diffs version `a` against version `b` (TOML plus every file whose content or mode differs).
export function diffVersions(policyId: string, a: DiffSide, b: DiffSide, context: number): DiffView {
  // The TOML compares by its text (the `sha256` slot is only used for equality here).
  const tomlFile = (s: DiffSide) => ({
    path: 'requirements.toml',
    sha256: s.toml,
    mode: 0o644,
    content: Buffer.from(s.toml, 'utf8'),
  });
  const toml = fileDiff('requirements.toml', tomlFile(a), tomlFile(b), a.number, b.number, context);
  const paths = [...new Set([...a.files.map((f) => f.path), ...b.files.map((f) => f.path)])].sort();
  const byPath = (s: DiffSide) => new Map(s.files.map((f) => [f.path, f]));
  const aFiles = byPath(a);
  const bFiles = byPath(b);
  const files = paths
    .map((p) => fileDiff(p, aFiles.get(p), bFiles.get(p), a.number, b.number, context))
    .filter((d) => d.status !== 'unchanged');
  return { policyId, from: a.number, to: b.number, fromDigest: a.digest, toDigest: b.digest, toml, files };
}

// The whole diff as one text/x-diff document.
export function diffAsText(d: DiffView): string {
  return [d.toml, ...d.files]
    .map((f) => f.patch)
    .filter((p) => p !== '')
    .join('');
}
