// Matcher semantics: match-all forms, exact `|`-alternatives, otherwise an unanchored regex (Rust-regex compatible subset).

/** A compiled matcher: test a candidate (tool name, source, trigger, ...). */
export interface CompiledMatcher {
  kind: 'all' | 'exact' | 'regex';
  test(value: string): boolean;
}

export type MatcherCompileResult = { ok: true; matcher: CompiledMatcher } | { ok: false; error: string };

const EXACT = /^[A-Za-z0-9_|]+$/;
const MATCH_ALL: CompiledMatcher = { kind: 'all', test: () => true };
const cache = new Map<string, MatcherCompileResult>();

// Rejects regex features JavaScript accepts but the reference engine's Rust regex does not.
function rustIncompatibility(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'look-around assertions are not supported';
  if (/\\[1-9]/.test(pattern) || /\\k</.test(pattern)) return 'backreferences are not supported';
  return undefined;
}

// Compiles a matcher string once (cached): `undefined`, `""` and `"*"` match everything.
export function compileConfigMatcher(matcher: string | undefined): MatcherCompileResult {
  if (matcher === undefined || matcher === '' || matcher === '*') return { ok: true, matcher: MATCH_ALL };
  const hit = cache.get(matcher);
  if (hit) return hit;
  let result: MatcherCompileResult;
  if (EXACT.test(matcher)) {
    const names = new Set(matcher.split('|'));
    result = { ok: true, matcher: { kind: 'exact', test: (v) => names.has(v) } };
  } else {
    const bad = rustIncompatibility(matcher);
    if (bad) result = { ok: false, error: bad };
    else {
      // Rust's leading inline flag group `(?i)` becomes a JS flag; other inline flags are unsupported.
      let source = matcher;
      let flags = 'u';
      const inline = /^\(\?([ims]+)\)/.exec(source);
      if (inline?.[1]) {
        flags += inline[1];
        source = source.slice(inline[0].length);
      }
      try {
        const re = new RegExp(source, flags);
        result = { ok: true, matcher: { kind: 'regex', test: (v) => re.test(v) } };
      } catch (e) {
        result = { ok: false, error: (e as Error).message };
      }
    }
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
