// The status report as the API accepts it: every field cut to the bounds of POST /v1/agent/status, so a long refusal
// reason or a huge drift list still reaches the server instead of being refused with a 400.
import { truncate } from '../log';

/** Bounds of POST /v1/agent/status (apps/api agent.dto statusSchema). */
export const STATUS_LIMITS = {
  errorChars: 2000,
  errors: 50,
  files: 10_000,
  pathChars: 1024,
  sha256Chars: 80,
} as const;

export interface ReportFields {
  errors: string[];
  files: Array<{ path: string; sha256: string | null }>;
}

// A copy of the report with errors and files within the API's bounds (a dropped remainder is counted in the last error).
export function boundedReport<T extends ReportFields>(report: T): T {
  let errors = report.errors.map((e) => truncate(e, STATUS_LIMITS.errorChars));
  if (errors.length > STATUS_LIMITS.errors) {
    const extra = errors.length - (STATUS_LIMITS.errors - 1);
    errors = [...errors.slice(0, STATUS_LIMITS.errors - 1), `… and ${extra} more`];
  }
  const files = report.files
    .filter((f) => f.path.length <= STATUS_LIMITS.pathChars)
    .slice(0, STATUS_LIMITS.files)
    .map((f) => ({ path: f.path, sha256: f.sha256 && f.sha256.slice(0, STATUS_LIMITS.sha256Chars) }));
  return { ...report, errors, files };
}
