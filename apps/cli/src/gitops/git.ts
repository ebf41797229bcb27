// Git provenance of a layout directory (commit, author, dirty) for version messages.
import { execFile } from 'node:child_process';

export interface GitInfo {
  commit: string;
  subject: string;
  author: string;
  dirty: boolean;
}

// Runs git with a deadline and a bounded output; null on any failure (no git, not a work tree).
function git(dir: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-C', dir, ...args],
      { timeout: 10_000, maxBuffer: 1024 * 1024, windowsHide: true },
      (err, stdout) => resolve(err ? null : stdout.trim()),
    );
  });
}

// The HEAD commit of the work tree containing `dir`, or null when `dir` is not in one.
export async function gitInfo(dir: string): Promise<GitInfo | null> {
  if ((await git(dir, ['rev-parse', '--is-inside-work-tree'])) !== 'true') return null;
  const log = await git(dir, ['log', '-1', '--format=%H%x00%an <%ae>%x00%s']);
  if (!log) return null;
  const [commit = '', author = '', subject = ''] = log.split('\0');
  const status = await git(dir, ['status', '--porcelain', '--', '.']);
  return { commit, author, subject, dirty: status !== null && status !== '' };
}

// The version message: the user's text (or the commit subject) plus git provenance, at most 2000 characters.
export function versionMessage(user: string | undefined, info: GitInfo | null, folder: string): string {
  const lines: string[] = [user ?? (info ? info.subject : `hookwarden apply of ${folder}`)];
  if (info) {
    lines.push(
      '',
      `git-commit: ${info.commit}${info.dirty ? ' (with uncommitted changes)' : ''}`,
      `git-author: ${info.author}`,
    );
  }
  lines.push(`source: ${folder}`);
  const text = lines.join('\n');
  return text.length > 2000 ? text.slice(0, 1999) + '…' : text;
}
