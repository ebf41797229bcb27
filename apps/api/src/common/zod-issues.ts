// Flattens zod issues into { path, message } pairs with JSON-path style locations.
import type { ZodError } from 'zod';

export interface IssueDetail {
  path: string;
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

// Converts a ZodError into located issue details.
export function zodIssues(error: ZodError): IssueDetail[] {
  return error.issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message, code: issue.code }));
}
