// The status report as the API accepts it: errors and files cut to the bounds of POST /v1/agent/status (hook-core's
// wire contract), so a long refusal reason or a huge drift list still reaches the server instead of a 400.
import { boundStatusErrors, boundStatusFiles } from '@hookwarden/hook-core';

export interface ReportFields {
  errors: string[];
  files: Array<{ path: string; sha256: string | null }>;
}

// A copy of the report with errors and files within the API's bounds.
export function boundedReport<T extends ReportFields>(report: T): T {
  return { ...report, errors: boundStatusErrors(report.errors), files: boundStatusFiles(report.files) };
}
