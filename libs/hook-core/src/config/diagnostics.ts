// Building located configuration diagnostics: JSON-path formatting and a collector bound to one file.
import type { ConfigDiagnostic } from '../types';

/** A path into a parsed document: object keys and array indices. */
export type DocPath = ReadonlyArray<string | number>;

/** Resolves a document path to a 1-based line/column in the source text, when known. */
export interface Locator {
  locate(path: DocPath): { line: number; column: number } | undefined;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

// Formats a document path as a JSON path (`$.hooks.PreToolUse[0].hooks[0].timeout`).
export function formatPath(path: DocPath): string {
  let out = '$';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (IDENT.test(part)) out += `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** Collects diagnostics for one file, attaching the file name and source location. */
export class DiagnosticCollector {
  readonly diagnostics: ConfigDiagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(
    readonly file: string | undefined,
    private readonly locator?: Locator,
  ) {}

  // Records a diagnostic at a document path (line/column filled in from the locator when it knows them).
  add(severity: ConfigDiagnostic['severity'], code: string, message: string, path?: DocPath): ConfigDiagnostic {
    const d: ConfigDiagnostic = { severity, code, message };
    if (this.file !== undefined) d.file = this.file;
    if (path !== undefined) {
      d.path = formatPath(path);
      const loc = this.locator?.locate(path);
      if (loc) {
        d.line = loc.line;
        d.column = loc.column;
      }
    }
    this.diagnostics.push(d);
    return d;
  }

  // Records a warning.
  warn(code: string, message: string, path?: DocPath): ConfigDiagnostic {
    return this.add('warning', code, message, path);
  }

  // Records an error.
  error(code: string, message: string, path?: DocPath): ConfigDiagnostic {
    return this.add('error', code, message, path);
  }

  // Records a warning only the first time this exact code+message is seen in the file (the reference engine dedupes).
  warnOnce(code: string, message: string, path?: DocPath): void {
    const k = `${code}\u0000${message}`;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.warn(code, message, path);
  }
}

// Human-readable location suffix for messages (`file:line:column` or `file at $.path`).
export function where(d: Pick<ConfigDiagnostic, 'file' | 'path' | 'line' | 'column'>): string {
  const file = d.file ?? '<input>';
  if (d.line !== undefined) return `${file}:${d.line}:${d.column ?? 1}`;
  if (d.path !== undefined) return `${file} at ${d.path}`;
  return file;
}
