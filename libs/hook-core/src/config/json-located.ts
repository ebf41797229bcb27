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
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

// Key for the position map: path segments joined unambiguously.
function pathKey(path: DocPath): string {
  return path.map((p) => (typeof p === 'number' ? `#${p}` : `.${p}`)).join('\u0000');
}

/** Parses JSON text strictly (no comments, no trailing commas), recording each value's position by path. */
export function parseJsonLocated(text: string): JsonParseResult {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const offset0 = text.length - src.length;
  const positions = new Map<string, number>();
  let i = 0;
  const path: Array<string | number> = [];

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
    STRING.lastIndex = i;
    const m = STRING.exec(src);
    if (!m) throw new JsonSyntaxError('invalid string literal', i);
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };

  const parseValue = (): unknown => {
    ws();
    positions.set(pathKey(path), i);
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
      path.push(key);
      const v = parseValue();
      // The key's own position is more useful than the value's for "unknown key" warnings.
      positions.set(pathKey(path), keyAt);
      path.pop();
      Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
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
      path.push(arr.length);
      arr.push(parseValue());
      path.pop();
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
