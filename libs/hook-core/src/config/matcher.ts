// Matcher semantics: match-all forms, exact `|`-alternatives, otherwise an unanchored RE2 regex (linear time).
import { compileLinearRegex } from '../match/regex';

/** A compiled matcher: test a candidate (tool name, source, trigger, ...). */
export interface CompiledMatcher {
  kind: 'all' | 'exact' | 'regex';
  test(value: string): boolean;
}

export type MatcherCompileResult = { ok: true; matcher: CompiledMatcher } | { ok: false; error: string };

const EXACT = /^[A-Za-z0-9_|]+$/;
const MATCH_ALL: CompiledMatcher = { kind: 'all', test: () => true };
const cache = new Map<string, MatcherCompileResult>();

// Compiles a matcher string once (cached): `undefined`, `""` and `"*"` match everything; regexes are RE2 (linear time).
export function compileConfigMatcher(matcher: string | undefined): MatcherCompileResult {
  if (matcher === undefined || matcher === '' || matcher === '*') return { ok: true, matcher: MATCH_ALL };
  const hit = cache.get(matcher);
  if (hit) return hit;
  let result: MatcherCompileResult;
  if (EXACT.test(matcher)) {
    const names = new Set(matcher.split('|'));
    result = { ok: true, matcher: { kind: 'exact', test: (v) => names.has(v) } };
  } else {
    const c = compileLinearRegex(matcher);
    result = c.ok ? { ok: true, matcher: { kind: 'regex', test: (v) => c.regex.test(v) } } : c;
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(matcher, result);
  return result;
}

// Heuristic: does this matcher look like an expression/permission rule rather than a name or regex?
export function matcherLooksLikeExpression(matcher: string): boolean {
  return /==|&&|\|\||\bmatches\b|\s/.test(matcher) && !/^\s*$/.test(matcher);
}

// Why a matcher is invalid (reference semantics), or undefined when it is usable.
export function validateMatcher(matcher: string | undefined): string | undefined {
  const r = compileConfigMatcher(matcher);
  return r.ok ? undefined : r.error;
}
