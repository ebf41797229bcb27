// A strict JSON parser that remembers where every value starts, for located errors and warnings.
import type { DocPath, Locator } from './diagnostics';

export type JsonParseResult =
  { ok: true; value: unknown; locator: Locator } | { ok: false; message: string; line: number; column: number };

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

// Offsets of every line start, to turn offsets into 1-based line/column.
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

// 1-based line/column of an offset.
function toLineCol(starts: number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

// Key for the position map: path segments joined unambiguously (same encoding as the parser's stack).
function pathKey(path: DocPath): string {
  let k = '';
  for (const p of path) k += typeof p === 'number' ? `\u0000#${p}` : `\u0000.${p}`;
  return k;
}

// The located parser proper: positions of every value by path (slower than JSON.parse, so only run when needed).
function parseWithPositions(text: string): JsonParseResult {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const offset0 = text.length - src.length;
  const positions = new Map<string, number>();
  let i = 0;
  // Key of the current path, maintained incrementally (a stack of prefixes).
  const keys: string[] = [''];
  const cur = (): string => keys[keys.length - 1] ?? '';

  const ws = (): void => {
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const describe = (): string =>
    i >= src.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(src[i])}`;

  const parseString = (): string => {
    const start = i;
    let escaped = false;
    for (i++; i < src.length; i++) {
      const c = src.charCodeAt(i);
      if (c === 34) {
        i++;
        const raw = src.slice(start, i);
        if (!escaped) return raw.slice(1, -1);
        try {
          return JSON.parse(raw) as string;
        } catch {
          throw new JsonSyntaxError('invalid escape in string', start);
        }
      }
      if (c === 92) {
        escaped = true;
        i++;
      } else if (c < 32) throw new JsonSyntaxError('control character in string', i);
    }
    throw new JsonSyntaxError('unterminated string', start);
  };

  const parseValue = (): unknown => {
    ws();
    positions.set(cur(), i);
    const c = src[i];
    if (c === '{') return parseObject();
    if (c === '[') return parseArray();
    if (c === '"') return parseString();
    if (src.startsWith('true', i)) return ((i += 4), true);
    if (src.startsWith('false', i)) return ((i += 5), false);
    if (src.startsWith('null', i)) return ((i += 4), null);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(src);
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    throw new JsonSyntaxError(describe(), i);
  };

  const parseObject = (): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    i++;
    ws();
    if (src[i] === '}') return (i++, obj);
    for (;;) {
      ws();
      if (src[i] !== '"') throw new JsonSyntaxError(`expected a property name, ${describe()}`, i);
      const keyAt = i;
      const key = parseString();
      ws();
      if (src[i] !== ':') throw new JsonSyntaxError(`expected ':' after property name, ${describe()}`, i);
      i++;
      keys.push(`${cur()}\u0000.${key}`);
      const v = parseValue();
      // The key's own position is more useful than the value's for "unknown key" warnings.
      positions.set(cur(), keyAt);
      keys.pop();
      if (key === '__proto__') {
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
      } else obj[key] = v;
      ws();
      if (src[i] === '}') return (i++, obj);
      if (src[i] !== ',') throw new JsonSyntaxError(`expected ',' or '}', ${describe()}`, i);
      const commaAt = i;
      i++;
      ws();
      if (src[i] === '}') throw new JsonSyntaxError('trailing comma before }', commaAt);
    }
  };

  const parseArray = (): unknown[] => {
    const arr: unknown[] = [];
    i++;
    ws();
    if (src[i] === ']') return (i++, arr);
    for (;;) {
      keys.push(`${cur()}\u0000#${arr.length}`);
      arr.push(parseValue());
      keys.pop();
      ws();
      if (src[i] === ']') return (i++, arr);
      if (src[i] !== ',') throw new JsonSyntaxError(`expected ',' or ']', ${describe()}`, i);
      const commaAt = i;
      i++;
      ws();
      if (src[i] === ']') throw new JsonSyntaxError('trailing comma before ]', commaAt);
    }
  };

  let starts: number[] | undefined;
  try {
    const value = parseValue();
    ws();
    if (i < src.length) throw new JsonSyntaxError(`unexpected content after the JSON value`, i);
    const locator: Locator = {
      locate(p) {
        for (let n = p.length; n >= 0; n--) {
          const off = positions.get(pathKey(p.slice(0, n)));
          if (off !== undefined) return toLineCol((starts ??= lineStarts(text)), off + offset0);
        }
        return undefined;
      },
    };
    return { ok: true, value, locator };
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const { line, column } = toLineCol(lineStarts(text), e.offset + offset0);
    return { ok: false, message: e.message, line, column };
  }
}

/** Deepest nesting of arrays and objects accepted (a hooks.json needs 6 levels; deeper input is hostile). */
export const MAX_JSON_DEPTH = 100;

/** Offset of the first bracket nested deeper than `limit` (strings skipped), or -1: one linear pass, no recursion. */
export function tooDeepAt(text: string, limit: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip a string (escapes included); an unterminated one is left to the parser.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return i;
    } else if (c === 125 || c === 93) depth--;
  }
  return -1;
}

/**
 * Parses JSON text strictly (no comments, no trailing commas). JSON.parse does the work; the position index is
 * built lazily, only when a diagnostic needs a location or the text is invalid (to locate the error). Nesting deeper
 * than MAX_JSON_DEPTH is refused up front (located), so no parser or walker recurses without bound.
 */
export function parseJsonLocated(text: string): JsonParseResult {
  const deep = tooDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0) {
    const { line, column } = toLineCol(lineStarts(text), deep);
    return { ok: false, message: `nested deeper than ${MAX_JSON_DEPTH} levels`, line, column };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    const located = parseWithPositions(text);
    if (!located.ok) return located;
    return { ok: false, message: (e as Error).message, line: 1, column: 1 };
  }
  let inner: Locator | undefined;
  const locator: Locator = {
    locate(path) {
      if (inner === undefined) {
        const r = parseWithPositions(text);
        inner = r.ok ? r.locator : { locate: () => undefined };
      }
      return inner.locate(path);
    },
  };
  return { ok: true, value, locator };
}
