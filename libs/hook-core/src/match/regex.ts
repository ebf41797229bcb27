// The one regex compiler of the engine: RE2 syntax and linear-time matching (re2js), for matchers and redaction.
import { RE2JS } from 're2js';

/** Longest pattern accepted (matchers, redaction patterns): compile cost stays bounded whatever a file holds. */
export const MAX_REGEX_PATTERN_LENGTH = 4096;

/** A compiled linear-time regex (no backtracking: match time is linear in the input). */
export interface LinearRegex {
  readonly source: string;
  /** Whether the pattern matches anywhere in `text` (unanchored search). */
  test(text: string): boolean;
  /** `text` with every non-overlapping match replaced by the literal `replacement`. */
  replaceAll(text: string, replacement: string): string;
}

export type RegexCompileResult = { ok: true; regex: LinearRegex } | { ok: false; error: string };

const cache = new Map<string, RegexCompileResult>();

// Rewrites RE2's error text ("error parsing regexp: missing closing ): `(`") to the part a user needs.
function cleanError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/^error parsing regexp:\s*/, '');
}

// Compiles a pattern (cached) with RE2 semantics: what validation accepts is exactly what dispatch runs.
export function compileLinearRegex(pattern: string): RegexCompileResult {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let result: RegexCompileResult;
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
    result = { ok: false, error: `pattern longer than ${MAX_REGEX_PATTERN_LENGTH} characters` };
  } else {
    try {
      const re = RE2JS.compile(pattern);
      const regex: LinearRegex = {
        source: pattern,
        test: (text) => re.test(text),
        replaceAll: (text, replacement) => re.matcher(text).replaceAll(RE2JS.quoteReplacement(replacement)),
      };
      result = { ok: true, regex };
    } catch (e) {
      result = { ok: false, error: cleanError(e) };
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(pattern, result);
  return result;
}

// Why a pattern is not a valid engine regex, or undefined when it compiles (for validating before storing).
export function regexError(pattern: string): string | undefined {
  const r = compileLinearRegex(pattern);
  return r.ok ? undefined : r.error;
}
