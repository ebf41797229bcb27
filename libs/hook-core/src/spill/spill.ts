// Spilling: oversized model-visible hook output is saved whole to disk and replaced by a head-and-tail preview.
import { dirname, join, resolve } from 'node:path';
import { randomUuid } from '../record/canonical';

/** Default model-visible limit in (approximate) tokens. */
export const DEFAULT_CONTEXT_LIMIT_TOKENS = 2500;

/** File operations spilling needs (injectable for tests). */
export interface SpillFs {
  /** Creates one directory (never recursive: Node's recursive mkdir can loop forever on some file systems). */
  mkdir(path: string, options: { mode: number }): Promise<unknown>;
  writeFile(path: string, data: string, options: { mode: number; flag: string }): Promise<void>;
}

/** Where and how to spill. */
export interface SpillOptions {
  /** `<temp_dir>`: spilled files go to `<temp_dir>/hook_outputs/<session_id>/<uuid>.txt`. */
  tempDir: string;
  sessionId: string;
  uuid?: () => string;
  fs?: SpillFs;
}

/** The model-visible text and, when spilled, the file holding the full text. */
export interface SpillResult {
  text: string;
  spilled: boolean;
  spillPath?: string;
  /** Set when the file could not be written (the preview is then a truncated preview alone). */
  spillError?: string;
  originalTokens: number;
}

// node:fs/promises is loaded only when something spills (a hook event that spills nothing never needs it).
const fsPromises = (): typeof import('node:fs/promises') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:fs/promises') as typeof import('node:fs/promises');
const nodeFs: SpillFs = {
  mkdir: (path, options) => fsPromises().mkdir(path, options),
  writeFile: (path, data, options) => fsPromises().writeFile(path, data, options),
};

/** Creates `dir` and its missing parents, one level at a time (bounded by the path's depth; never loops). */
export async function ensureDir(fs: SpillFs, dir: string, mode: number): Promise<void> {
  const chain: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    chain.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of chain) {
    try {
      await fs.mkdir(d, { mode });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // An existing parent is fine; if it is not a directory, the next level fails with ENOTDIR.
      if (code === 'EEXIST' || (code === 'EISDIR' && d !== chain[chain.length - 1])) continue;
      throw e;
    }
  }
}

/** Approximate token count as the reference engine estimates it: UTF-8 bytes / 4, rounded up. */
export function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** A session id made safe as one path component (no separators, no `.`/`..`, bounded length). */
export function sanitizeSessionId(sessionId: string): string {
  const s = sessionId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  return s === '' || /^\.+$/.test(s) ? `_${s.replace(/\./g, '_')}` : s;
}

/** Line count like Rust's `str::lines()` (a trailing newline does not add a line). */
function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/** Head and tail of `text` within `budgetBytes` (split evenly, cut at UTF-8 character boundaries). */
function headTail(buf: Buffer, budgetBytes: number): { head: string; tail: string; kept: number } {
  const leftBudget = Math.floor(budgetBytes / 2);
  const rightBudget = budgetBytes - leftBudget;
  let end = Math.min(leftBudget, buf.length);
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  let start = Math.max(buf.length - rightBudget, end);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return {
    head: buf.subarray(0, end).toString('utf8'),
    tail: buf.subarray(start).toString('utf8'),
    kept: end + (buf.length - start),
  };
}

/**
 * Preview shaped like the reference engine's: a warning header, the line count, head + `…N tokens truncated…` + tail,
 * then the footer naming the saved file. The footer's tokens come out of the budget.
 */
export function buildPreview(text: string, limitTokens: number, footer: string): string {
  const buf = Buffer.from(text, 'utf8');
  const footerTokens = Math.ceil(Buffer.byteLength(footer, 'utf8') / 4);
  const budget = Math.max(0, limitTokens - footerTokens) * 4;
  const { head, tail, kept } = headTail(buf, budget);
  const removedTokens = Math.ceil((buf.length - kept) / 4);
  return (
    `Warning: truncated output (original token count: ${approxTokens(text)})\n` +
    `Total output lines: ${countLines(text)}\n\n` +
    `${head}…${removedTokens} tokens truncated…${tail}${footer}`
  );
}

/** Spill `text` when it exceeds `limitTokens` (0 = no limit); otherwise return it unchanged. */
export async function spillIfNeeded(text: string, limitTokens: number, options: SpillOptions): Promise<SpillResult> {
  const originalTokens = approxTokens(text);
  if (limitTokens <= 0 || Buffer.byteLength(text, 'utf8') <= limitTokens * 4)
    return { text, spilled: false, originalTokens };
  const fs = options.fs ?? nodeFs;
  const dir = join(options.tempDir, 'hook_outputs', sanitizeSessionId(options.sessionId));
  const path = join(dir, `${(options.uuid ?? randomUuid)()}.txt`);
  try {
    await ensureDir(fs, dir, 0o700);
    await fs.writeFile(path, text, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    return {
      text: buildPreview(text, limitTokens, ''),
      spilled: false,
      spillError: (err as Error).message,
      originalTokens,
    };
  }
  return {
    text: buildPreview(text, limitTokens, `\n\nFull hook output saved to: ${path}`),
    spilled: true,
    spillPath: path,
    originalTokens,
  };
}
