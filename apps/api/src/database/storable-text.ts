// Lossless escaping of text PostgreSQL cannot store (NUL, lone UTF-16 surrogates): such a string is stored as
// MARK + the string with `%`, NUL and lone surrogates written as `%XXXX`; decoding gives back the exact string.

/** Prefix of an escaped string (a private-use character no endpoint text starts with unescaped). */
export const ESCAPE_MARK = '\uE000esc:';

/** Characters that need `%XXXX` inside an escaped string. */
const ESCAPED_CHARS = /%|\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A character PostgreSQL cannot store (NUL, lone surrogate). */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ESCAPE_SEQUENCE = /%([0-9A-F]{4})/g;

/** JSON text that may hold an unstorable string: a \u0000 or surrogate escape, or the mark (checked exactly later). */
const SUSPECT_JSON = /\\u0000|\\u[dD][89abAB-Fa-f]|\uE000/;

// True when the string cannot be stored as is (or would be mistaken for an escaped one).
export function needsEscape(s: string): boolean {
  return UNSTORABLE.test(s) || s.startsWith(ESCAPE_MARK);
}

// The storable form of one string (itself when nothing needs escaping).
export function escapeText(s: string): string {
  if (!needsEscape(s)) return s;
  return (
    ESCAPE_MARK + s.replace(ESCAPED_CHARS, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
  );
}

// The original of a stored string.
export function decodeText(s: string): string {
  if (!s.startsWith(ESCAPE_MARK)) return s;
  return s
    .slice(ESCAPE_MARK.length)
    .replace(ESCAPE_SEQUENCE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

// True when a JSON text may contain a string needing escape (cheap pre-check on the uploaded line).
export function jsonMayNeedEscape(text: string): boolean {
  return SUSPECT_JSON.test(text);
}

// A deep copy with every string (keys too) made storable; `changed` tells whether anything was escaped.
export function escapeDeep(value: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const e = escapeText(v);
      if (e !== v) changed = true;
      return e;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[walk(k) as string] = walk(x);
      return out;
    }
    return v;
  };
  const out = walk(value);
  return { value: out, changed };
}

// The original of a deep value stored with escapeDeep.
export function decodeDeep(value: unknown): unknown {
  if (typeof value === 'string') return decodeText(value);
  if (Array.isArray(value)) return value.map(decodeDeep);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[decodeText(k)] = decodeDeep(x);
    return out;
  }
  return value;
}

/** Longest text kept in an indexed column (a btree entry holds at most ~2.7 kB; the record keeps the full text). */
export const COLUMN_TEXT_MAX = 512;

// A column value bounded to COLUMN_TEXT_MAX UTF-16 units, never splitting a surrogate pair.
export function boundColumn(s: string | null, max = COLUMN_TEXT_MAX): string | null {
  if (s === null || s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}
