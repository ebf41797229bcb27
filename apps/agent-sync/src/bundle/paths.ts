// Path rules for managed files: relative, forward slashes, no `.`/`..`/empty segments, no control characters.

// Returns why a manifest path is unsafe, or null when it is fine.
export function unsafePathReason(p: string): string | null {
  if (p.length === 0) return 'empty path';
  if (p.includes('\\')) return 'backslash in path';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'absolute path';
  if (/[\x00-\x1f]/.test(p)) return 'control character in path';
  const parts = p.split('/');
  if (parts.some((s) => s === '..')) return 'path contains ..';
  if (parts.some((s) => s === '' || s === '.')) return 'empty or . segment in path';
  return null;
}
