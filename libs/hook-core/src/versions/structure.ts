// Structural bounds of a policy value: nesting depth, and strings a database (or JSON) cannot store unchanged.
import type { ConfigDiagnostic } from '../types';
import { type DocPath, formatPath } from '../config/diagnostics';

/** Deepest nesting accepted in a structured policy (TOML documents are far shallower in practice). */
export const MAX_POLICY_DEPTH = 32;
/** Most structural problems reported for one document. */
const MAX_PROBLEMS = 50;

/** A UTF-16 surrogate half without its partner (cannot be stored as UTF-8 or in jsonb). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// True when the string stores unchanged as UTF-8 text or jsonb (no NUL, no lone surrogate).
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

// Problems of a structured value (too deep, unstorable strings or keys), at document paths; iterative (no recursion).
export function checkStructure(root: unknown): ConfigDiagnostic[] {
  const errors: ConfigDiagnostic[] = [];
  const problem = (code: string, message: string, at: DocPath): void => {
    errors.push({ severity: 'error', code, message, path: formatPath(at) });
  };
  const stack: Array<{ v: unknown; at: DocPath }> = [{ v: root, at: [] }];
  while (stack.length > 0 && errors.length < MAX_PROBLEMS) {
    const { v, at } = stack.pop()!;
    if (at.length > MAX_POLICY_DEPTH) {
      problem('too_deep', `nested deeper than ${MAX_POLICY_DEPTH} levels`, at);
      continue;
    }
    if (typeof v === 'string') {
      if (!isStorableText(v)) problem('invalid_text', 'string has a NUL or unpaired surrogate', at);
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, at: [...at, i] }));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (!isStorableText(k)) problem('invalid_text', 'key has a NUL or unpaired surrogate', [...at, k]);
        stack.push({ v: x, at: [...at, k] });
      }
    }
  }
  return errors;
}
