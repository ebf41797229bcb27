// The HTTP rules every Hookwarden client shares (admin CLI, console, agent): the one decoder of the API's error body
// and the one Retry-After rule. No dependency and no Node.js module: the console bundles this file
// (`@hookwarden/hook-core/http`).

/** The decoded `{ error: { code, message, details?, requestId? } }` body every API error answers with. */
export interface DecodedErrorBody {
  code: string;
  message: string;
  details?: unknown;
  requestId?: string;
}

/** Longest Retry-After value read as an HTTP date (anything longer is ignored). */
const MAX_RETRY_AFTER_DATE_CHARS = 64;

// The error code, message, details and request id of an API answer's body, or null when it is not the error body.
export function parseErrorBody(value: unknown): DecodedErrorBody | null {
  if (typeof value !== 'object' || value === null) return null;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const e = error as Record<string, unknown>;
  if (typeof e.code !== 'string' || typeof e.message !== 'string') return null;
  if (e.requestId !== undefined && typeof e.requestId !== 'string') return null;
  const out: DecodedErrorBody = { code: e.code, message: e.message };
  if ('details' in e && e.details !== undefined) out.details = e.details;
  if (e.requestId !== undefined) out.requestId = e.requestId;
  return out;
}

// Milliseconds a Retry-After header asks to wait (delay-seconds or an HTTP date); null when absent or invalid.
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date starts with its day name; anything else (`-1`, `1.5`) is not a date, whatever Date.parse makes of it.
  if (trimmed.length > MAX_RETRY_AFTER_DATE_CHARS || !/^[A-Za-z]{3}/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
