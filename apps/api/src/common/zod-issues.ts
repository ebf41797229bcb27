// Flattens zod issues into located { path, in, message, code } details with JSON-path style locations.
import type { ZodError } from 'zod';

/** Where in the request a problem is: a query parameter, a path parameter, the body or a header. */
export type IssueLocation = 'query' | 'path' | 'body' | 'header';

/** One validation problem (the items of `error.details` on a 400 validation_failed). */
export interface IssueDetail {
  path: string;
  in?: IssueLocation;
  message: string;
  code: string;
}

// Renders a zod path as `$.a.b[0]`.
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

// Converts a ZodError into located issue details (`where`: which part of the request was validated).
export function zodIssues(error: ZodError, where?: IssueLocation): IssueDetail[] {
  return error.issues.map((issue) => ({
    path: jsonPath(issue.path),
    ...(where ? { in: where } : {}),
    message: issue.message,
    code: issue.code,
  }));
}
