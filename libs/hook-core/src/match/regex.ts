// The one regex compiler of the engine: RE2 syntax and linear-time matching (re2js), for matchers and redaction.
import type { RE2JS } from 're2js';

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

/**
 * Patterns made only of word characters, `|`, `^` and `$` (`^Bash$`, `^Read|Write$`): no quantifier, class or
 * group, so a JavaScript RegExp matches them exactly as RE2 does (`^`/`$` at the text's ends, no multi-line flag)
 * and in linear time; the common matchers compile without loading re2js.
 */
const LITERAL_ALTERNATION = /^[A-Za-z0-9_|^$]*$/;

// re2js, loaded on the first pattern that needs it (it is the largest module of a hook event otherwise).
function re2(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('re2js') as typeof import('re2js')).RE2JS;
}

// Rewrites RE2's error text ("error parsing regexp: missing closing ): `(`") to the part a user needs.
function cleanError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/^error parsing regexp:\s*/, '');
}

// An RE2-compiled pattern (throws RE2's syntax error).
function re2Regex(pattern: string): LinearRegex {
  const RE2JS = re2();
  const re = RE2JS.compile(pattern);
  return {
    source: pattern,
    test: (text) => re.test(text),
    replaceAll: (text, replacement) => re.matcher(text).replaceAll(RE2JS.quoteReplacement(replacement)),
  };
}

// A LITERAL_ALTERNATION pattern: tested by a JavaScript RegExp; replacing (redaction only) still goes through RE2.
function literalRegex(pattern: string): LinearRegex {
  const js = new RegExp(pattern);
  let replacer: LinearRegex | undefined;
  return {
    source: pattern,
    test: (text) => js.test(text),
    replaceAll: (text, replacement) => (replacer ??= re2Regex(pattern)).replaceAll(text, replacement),
  };
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
      result = { ok: true, regex: LITERAL_ALTERNATION.test(pattern) ? literalRegex(pattern) : re2Regex(pattern) };
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
