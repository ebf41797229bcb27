// Limits of the agent's status report (`POST /v1/agent/status`), shared so the agent never sends what the API refuses.

/** Most error strings in one status report. */
export const STATUS_MAX_ERRORS = 50;
/** Longest error string (characters) in one status report. */
export const STATUS_MAX_ERROR_CHARS = 2000;

/** Most file entries in one status report, the longest path and digest in one. */
export const STATUS_MAX_FILES = 10_000;
export const STATUS_MAX_PATH_CHARS = 1024;
export const STATUS_MAX_DIGEST_CHARS = 80;

/** Keeps the file entries the API accepts (paths within bound, at most STATUS_MAX_FILES). */
export function boundStatusFiles<T extends { path: string; sha256: string | null }>(files: readonly T[]): T[] {
  return files
    .filter((f) => f.path.length <= STATUS_MAX_PATH_CHARS && (f.sha256 ?? '').length <= STATUS_MAX_DIGEST_CHARS)
    .slice(0, STATUS_MAX_FILES);
}

/** Cuts a report's errors to what the API accepts (count and length), marking each cut. */
export function boundStatusErrors(errors: readonly string[]): string[] {
  const out = errors.slice(0, STATUS_MAX_ERRORS).map((e) => boundText(e, STATUS_MAX_ERROR_CHARS));
  if (errors.length > STATUS_MAX_ERRORS)
    out[STATUS_MAX_ERRORS - 1] = `… ${errors.length - STATUS_MAX_ERRORS + 1} more errors`;
  return out;
}

// Cuts a string to at most `max` UTF-16 code units at a code-point boundary, with a marker naming the cut.
function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = ` …[${text.length} characters, cut]`;
  let end = max - marker.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + marker;
}

/**
 * The one-poll header of GET /v1/agent/bundle: sent by the agent with the shadow layer it holds (its quoted ETag, or
 * `none`), answered by the API with the shadow layer the endpoint should hold; the agent fetches the shadow bundle
 * only when the two differ, so it holds one long poll instead of two.
 */
export const SHADOW_LAYER_HEADER = 'hookwarden-shadow';
