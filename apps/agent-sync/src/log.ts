// JSON-lines logging on stderr; a repeated message (same key) is written at most once a minute.
const REPEAT_MS = 60_000;
const lastByKey = new Map<string, { at: number; suppressed: number }>();

export type Level = 'debug' | 'info' | 'warn' | 'error';

// Writes one JSON line.
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n');
}

// Logs unless the same key was logged less than a minute ago (then counts the suppressed repeats).
export function logThrottled(key: string, level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const now = Date.now();
  const last = lastByKey.get(key);
  if (last && now - last.at < REPEAT_MS) {
    last.suppressed++;
    return;
  }
  lastByKey.set(key, { at: now, suppressed: 0 });
  log(level, msg, last && last.suppressed > 0 ? { ...fields, repeated: last.suppressed } : fields);
}

// Forgets a key (after recovery, so the next occurrence is logged at once).
export function clearThrottle(key: string): void {
  lastByKey.delete(key);
}

/** Longest text the agent logs or reports in one field. */
export const MAX_MESSAGE_CHARS = 2000;

// Cuts text to `max` characters (marking the cut), so a huge server message never floods a log line or a report.
export function truncate(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  const marker = ` … (${text.length - max + 1} more characters)`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}
