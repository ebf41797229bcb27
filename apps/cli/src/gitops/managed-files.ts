// Reads a managed-files directory: regular files only, the mode from the executable bit (0755 / 0644) unless the
// manifest names one, bounded in count, size and depth.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Problem } from '../cli/errors';
import { type ContentFile, MAX_FILE_BYTES, MAX_FILES, sha256Hex } from './content';

const MAX_DEPTH = 32;

/** The files read, and the problems met (symlinks, special files, too many, too large). */
export interface ReadFilesResult {
  files: ContentFile[];
  problems: Problem[];
}

// The mode a file ships with: 0755 when any executable bit is set, else 0644 (what git keeps).
export function modeFromStat(mode: number): number {
  return (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

// Reads every file under `dir` (absent directory: no files). `overrides` maps paths to explicit modes;
// `label` names a path in problems.
export async function readManagedFiles(
  dir: string,
  overrides: Record<string, number> = {},
  label: (rel: string) => string = (r) => r,
): Promise<ReadFilesResult> {
  const files: ContentFile[] = [];
  const problems: Problem[] = [];
  try {
    const st = await fs.lstat(dir);
    if (!st.isDirectory()) return { files, problems: [{ file: label(''), message: 'is not a directory' }] };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files, problems };
    throw err;
  }
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) {
      problems.push({ file: label(rel), message: `nested deeper than ${MAX_DEPTH} directories` });
      return;
    }
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        await walk(r, depth + 1);
        continue;
      }
      if (e.isSymbolicLink()) {
        problems.push({
          file: label(r),
          message: 'is a symbolic link: managed files must be regular files',
          code: 'symlink',
        });
        continue;
      }
      if (!e.isFile()) {
        problems.push({ file: label(r), message: 'is not a regular file', code: 'not_a_file' });
        continue;
      }
      if (files.length >= MAX_FILES) {
        problems.push({ file: label(r), message: `more than ${MAX_FILES} managed files`, code: 'too_many_files' });
        return;
      }
      const full = path.join(dir, r);
      const st = await fs.stat(full);
      if (st.size > MAX_FILE_BYTES) {
        problems.push({
          file: label(r),
          message: `${st.size} bytes; the limit is ${MAX_FILE_BYTES}`,
          code: 'file_too_large',
        });
        continue;
      }
      const content = await fs.readFile(full);
      if (content.length > MAX_FILE_BYTES) {
        problems.push({
          file: label(r),
          message: `grew beyond ${MAX_FILE_BYTES} bytes while read`,
          code: 'file_too_large',
        });
        continue;
      }
      files.push({ path: r, content, mode: overrides[r] ?? modeFromStat(st.mode), sha256: sha256Hex(content) });
    }
  };
  await walk('', 0);
  for (const p of Object.keys(overrides)) {
    if (!files.some((f) => f.path === p))
      problems.push({ file: label(p), message: 'has a mode in file_modes but no such file' });
  }
  return { files, problems };
}
