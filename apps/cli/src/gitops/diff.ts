// Unified diffs between the server's latest version and the directory's content (TOML and every managed file).
import { createTwoFilesPatch } from 'diff';

/** One side of a file (absent side: undefined). */
export interface DiffFile {
  path: string;
  content: Buffer;
  mode: number;
  sha256: string;
}

export interface FileChange {
  path: string;
  status: 'added' | 'removed' | 'modified' | 'mode_changed';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// The text of a file, or null for binary content (invalid UTF-8 or NUL bytes).
function asText(b: Buffer): string | null {
  try {
    const t = utf8.decode(b);
    return t.includes('\u0000') ? null : t;
  } catch {
    return null;
  }
}

const octal = (m: number) => `0${m.toString(8)}`;

// A git-style patch of one path (empty when unchanged).
function filePatch(
  label: string,
  a: DiffFile | undefined,
  b: DiffFile | undefined,
): { patch: string; change?: FileChange } {
  const status: FileChange['status'] | 'unchanged' = !a
    ? 'added'
    : !b
      ? 'removed'
      : a.sha256 !== b.sha256
        ? 'modified'
        : a.mode !== b.mode
          ? 'mode_changed'
          : 'unchanged';
  if (status === 'unchanged') return { patch: '' };
  let header = `diff --hookwarden a/${label} b/${label}\n`;
  if (a && b && a.mode !== b.mode) header += `old mode ${octal(a.mode)}\nnew mode ${octal(b.mode)}\n`;
  if (!a) header += `new file mode ${octal(b!.mode)}\n`;
  if (!b) header += `deleted file mode ${octal(a!.mode)}\n`;
  let body = '';
  if (status !== 'mode_changed') {
    const oldText = a ? asText(a.content) : '';
    const newText = b ? asText(b.content) : '';
    const oldName = a ? `a/${label}` : '/dev/null';
    const newName = b ? `b/${label}` : '/dev/null';
    body =
      oldText === null || newText === null
        ? `Binary files ${oldName} and ${newName} differ\n`
        : createTwoFilesPatch(oldName, newName, oldText, newText, 'server', 'directory', { context: 3 })
            .split('\n')
            .slice(1)
            .join('\n');
  }
  return { patch: header + body, change: { path: label, status } };
}

// Diffs the server's content (`before`, undefined for a new policy) against the directory's (`after`).
export function diffContent(
  before: { toml: string; files: DiffFile[] } | undefined,
  after: { toml: string; files: DiffFile[] },
): { text: string; changes: FileChange[] } {
  const tomlFile = (t: string): DiffFile => ({
    path: 'requirements.toml',
    content: Buffer.from(t, 'utf8'),
    mode: 0o644,
    sha256: t,
  });
  const parts: string[] = [];
  const changes: FileChange[] = [];
  const add = (r: { patch: string; change?: FileChange }) => {
    if (r.patch) parts.push(r.patch);
    if (r.change) changes.push(r.change);
  };
  add(filePatch('requirements.toml', before ? tomlFile(before.toml) : undefined, tomlFile(after.toml)));
  const a = new Map((before?.files ?? []).map((f) => [f.path, f]));
  const b = new Map(after.files.map((f) => [f.path, f]));
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  for (const p of paths) add(filePatch(`files/${p}`, a.get(p), b.get(p)));
  return { text: parts.join(''), changes };
}
