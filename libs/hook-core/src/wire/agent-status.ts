// Limits of the agent's status report (`POST /v1/agent/status`), shared so the agent never sends what the API refuses.

/** Most error strings in one status report. */
export const STATUS_MAX_ERRORS = 50;
/** Longest error string (characters) in one status report. */
export const STATUS_MAX_ERROR_CHARS = 2000;

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
