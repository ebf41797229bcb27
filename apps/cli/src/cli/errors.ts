// Errors the CLI reports to the user: a message, optional located details, and an exit code.

/** One located problem (from the API's error.details or from offline validation). */
export interface Problem {
  message: string;
  code?: string;
  severity?: 'error' | 'warning';
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  field?: string;
}

/** A failure shown to the user without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly problems: Problem[] = [],
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

// Renders one problem as `file:line:column: path (field): message`.
export function formatProblem(p: Problem): string {
  const where: string[] = [];
  if (p.file) where.push(p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file);
  else if (p.line !== undefined) where.push(`line ${p.line}, column ${p.column ?? 1}`);
  if (p.path && p.path !== '$') where.push(p.path);
  if (p.field && p.field !== p.path) where.push(`(field ${p.field})`);
  const sev = p.severity === 'warning' ? 'warning: ' : '';
  const code = p.code ? ` [${p.code}]` : '';
  return `${where.length ? `${where.join(' ')}: ` : ''}${sev}${p.message}${code}`;
}
