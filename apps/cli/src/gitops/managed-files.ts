// Reads a managed-files directory: regular files only, the mode from the executable bit (0755 / 0644) unless the
// manifest names one, bounded in count, size and depth.
import { type Dirent, promises as fs } from 'node:fs';
import type { Problem } from '../cli/errors';
import { ContainedDir, ContainedError } from './contained';
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

/** A folder inside a contained tree (the GitOps layout's policies/<folder>/files). */
export interface ContainedFolder {
  dir: ContainedDir;
  rel: string;
}

// Reads every file under `where` (absent directory: no files), never following a link and never leaving the tree
// (a plain path is a tree of its own). `overrides` maps paths to explicit modes; `label` names a path in problems.
export async function readManagedFiles(
  where: string | ContainedFolder,
  overrides: Record<string, number> = {},
  label: (rel: string) => string = (r) => r,
): Promise<ReadFilesResult> {
  const files: ContentFile[] = [];
  const problems: Problem[] = [];
  const folder = typeof where === 'string' ? await rootFolder(where) : where;
  if (!folder) return { files, problems };
  if (folder === 'not a directory') return { files, problems: [{ file: label(''), message: 'is not a directory' }] };
  const { dir, rel: base } = folder;
  const at = (rel: string) => [base, rel].filter(Boolean).join('/');
  // A refusal of the contained reader, relabelled with the caller's naming of the path.
  const refused = (err: unknown, rel: string): boolean => {
    if (!(err instanceof ContainedError)) return false;
    problems.push({ ...err.problem, file: label(rel) });
    return true;
  };
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) {
      problems.push({ file: label(rel), message: `nested deeper than ${MAX_DEPTH} directories` });
      return;
    }
    let entries: Dirent[];
    try {
      entries = (await dir.readDir(at(rel))) ?? [];
    } catch (err) {
      if (refused(err, rel)) return;
      throw err;
    }
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
      let read: Awaited<ReturnType<ContainedDir['readFile']>>;
      try {
        read = await dir.readFile(at(r), MAX_FILE_BYTES);
      } catch (err) {
        if (refused(err, r)) continue;
        problems.push({
          file: label(r),
          message: (err as Error).message.replace(/^[^:]*: /, ''),
          code: 'file_too_large',
        });
        continue;
      }
      if (!read) continue;
      const { content, stat } = read;
      files.push({ path: r, content, mode: overrides[r] ?? modeFromStat(stat.mode), sha256: sha256Hex(content) });
    }
  };
  await walk('', 0);
  for (const p of Object.keys(overrides)) {
    if (!files.some((f) => f.path === p))
      problems.push({ file: label(p), message: 'has a mode in file_modes but no such file' });
  }
  return { files, problems };
}

// A plain directory as a tree of its own; null when it does not exist.
async function rootFolder(dir: string): Promise<ContainedFolder | null | 'not a directory'> {
  const st = await fs.lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (!st) return null;
  const tree = st.isDirectory() ? await ContainedDir.open(dir) : null;
  return tree ? { dir: tree, rel: '' } : 'not a directory';
}
