// Unified diffs between two versions' content: the canonical TOML and every added, removed or changed managed file.
// One implementation for the API (version to version) and the CLI (server to directory).
import type { createTwoFilesPatch as CreateTwoFilesPatch } from 'diff';

// The diff package, loaded on the first diff: hook-core's entry is loaded by processes that never diff (the agent's
// daemon kept its 19 modules resident).
function createTwoFilesPatch(...args: Parameters<typeof CreateTwoFilesPatch>): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('diff') as typeof import('diff')).createTwoFilesPatch(...args);
}

/** One side of a file (an absent side is undefined). `sha256` only decides equality. */
export interface DiffSideFile {
  path: string;
  content: Uint8Array;
  mode: number;
  sha256: string;
}

/** A version's content as the diff sees it. */
export interface DiffSide {
  toml: string;
  files: readonly DiffSideFile[];
}

/** The change of one path. */
export interface FileDiff {
  /** `requirements.toml` or the file's label. */
  path: string;
  status: 'added' | 'removed' | 'modified' | 'mode_changed' | 'unchanged';
  oldMode: number | null;
  newMode: number | null;
  binary: boolean;
  /** Git-style patch (empty when unchanged). */
  patch: string;
}

/** How the diff is labelled and how much context it shows. */
export interface DiffOptions {
  /** Names of the two sides in the patch headers (`v3`, `server`). */
  fromLabel: string;
  toLabel: string;
  /** Context lines (0 to 100; default 3). */
  context?: number;
  /** The label of a managed file in patches (default: its path). */
  fileLabel?: (path: string) => string;
}

/** The diff of two contents: the TOML's and every changed file's, and the whole as one text/x-diff. */
export interface ContentDiff {
  toml: FileDiff;
  files: FileDiff[];
  text: string;
}

/** Most context lines a diff may ask for. */
export const MAX_DIFF_CONTEXT = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const octal = (m: number): string => `0${m.toString(8)}`;

// The file's text, or null when it is not valid UTF-8 or contains NUL (binary, as git treats it).
function asText(content: Uint8Array): string | null {
  try {
    const text = utf8.decode(content);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

// Checks the diff options (labels without line breaks, context in range); throws naming the bad one.
function checkOptions(o: DiffOptions): number {
  for (const [name, v] of [
    ['fromLabel', o.fromLabel],
    ['toLabel', o.toLabel],
  ] as const) {
    if (typeof v !== 'string' || v === '' || /[\r\n]/.test(v)) throw new TypeError(`diff: ${name} must be one line`);
  }
  const context = o.context ?? 3;
  if (!Number.isInteger(context) || context < 0 || context > MAX_DIFF_CONTEXT) {
    throw new TypeError(`diff: context must be an integer from 0 to ${MAX_DIFF_CONTEXT}`);
  }
  return context;
}

// The status of one path between two sides.
function statusOf(a: DiffSideFile | undefined, b: DiffSideFile | undefined): FileDiff['status'] {
  if (!a) return 'added';
  if (!b) return 'removed';
  if (a.sha256 !== b.sha256) return 'modified';
  return a.mode !== b.mode ? 'mode_changed' : 'unchanged';
}

// The diff of one path between two sides (either may be missing).
export function diffFile(
  label: string,
  a: DiffSideFile | undefined,
  b: DiffSideFile | undefined,
  options: DiffOptions,
): FileDiff {
  const context = checkOptions(options);
  const status = statusOf(a, b);
  const oldText = a ? asText(a.content) : '';
  const newText = b ? asText(b.content) : '';
  const binary = oldText === null || newText === null;
  let patch = '';
  if (status !== 'unchanged') {
    let header = `diff --hookwarden a/${label} b/${label}\n`;
    if (a && b && a.mode !== b.mode) header += `old mode ${octal(a.mode)}\nnew mode ${octal(b.mode)}\n`;
    if (!a) header += `new file mode ${octal(b!.mode)}\n`;
    if (!b) header += `deleted file mode ${octal(a!.mode)}\n`;
    const oldName = a ? `a/${label}` : '/dev/null';
    const newName = b ? `b/${label}` : '/dev/null';
    const body =
      status === 'mode_changed'
        ? ''
        : binary
          ? `Binary files ${oldName} and ${newName} differ\n`
          : createTwoFilesPatch(oldName, newName, oldText ?? '', newText ?? '', options.fromLabel, options.toLabel, {
              context,
            })
              .split('\n')
              .slice(1)
              .join('\n');
    patch = header + body;
  }
  return { path: label, status, oldMode: a?.mode ?? null, newMode: b?.mode ?? null, binary, patch };
}

// requirements.toml as a diff side (compared by its text).
function tomlSide(toml: string): DiffSideFile {
  return { path: 'requirements.toml', sha256: toml, mode: 0o644, content: Buffer.from(toml, 'utf8') };
}

// Diffs content `a` (undefined: nothing yet) against `b`: the TOML, then every changed file by path.
export function diffContent(a: DiffSide | undefined, b: DiffSide, options: DiffOptions): ContentDiff {
  checkOptions(options);
  const label = options.fileLabel ?? ((p: string) => p);
  const toml = diffFile('requirements.toml', a && tomlSide(a.toml), tomlSide(b.toml), options);
  const aFiles = new Map((a?.files ?? []).map((f) => [f.path, f]));
  const bFiles = new Map(b.files.map((f) => [f.path, f]));
  const paths = [...new Set([...aFiles.keys(), ...bFiles.keys()])].sort();
  const files = paths
    .map((p) => diffFile(label(p), aFiles.get(p), bFiles.get(p), options))
    .filter((d) => d.status !== 'unchanged');
  const text = [toml, ...files].map((f) => f.patch).join('');
  return { toml, files, text };
}
