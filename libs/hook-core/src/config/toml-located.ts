// TOML parsing (smol-toml) plus a line index mapping key paths to the line that defines them.
import { parse as parseToml, TomlError } from 'smol-toml';
import type { DocPath, Locator } from './diagnostics';

export type TomlParseResult =
  | { ok: true; value: Record<string, unknown>; locator: Locator }
  | { ok: false; message: string; line: number; column: number };

// Splits a dotted TOML key (`hooks.state."a.b"`) into its parts, honouring quotes.
export function splitTomlKey(raw: string): string[] {
  const parts: string[] = [];
  let i = 0;
  const s = raw.trim();
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      parts.push(JSON.parse(s.slice(i, j + 1)) as string);
      i = j + 1;
    } else if (s[i] === "'") {
      const j = s.indexOf("'", i + 1);
      parts.push(s.slice(i + 1, j < 0 ? s.length : j));
      i = j < 0 ? s.length : j + 1;
    } else {
      let j = i;
      while (j < s.length && s[j] !== '.' && s[j] !== ' ' && s[j] !== '\t') j++;
      parts.push(s.slice(i, j));
      i = j;
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] === '.') i++;
  }
  return parts;
}

const HEADER = /^\s*(\[\[?)\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\]"'#])+?)\s*\]\]?\s*(?:#.*)?$/;
const KEYLINE = /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\- \t])+?)\s*=/;

// Builds a map from resolved key paths (with array-of-table indices) to their 1-based line/column.
function indexLines(text: string): Map<string, { line: number; column: number }> {
  const map = new Map<string, { line: number; column: number }>();
  const arrayCounts = new Map<string, number>();
  let table: Array<string | number> = [];
  let multiline: string | null = null;
  let depth = 0;
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] ?? '';
    if (multiline) {
      if (line.includes(multiline)) multiline = null;
      continue;
    }
    if (depth > 0) {
      depth += bracketDelta(line);
      continue;
    }
    const h = HEADER.exec(line);
    if (h) {
      const keys = splitTomlKey(h[2] ?? '');
      const resolved: Array<string | number> = [];
      for (let k = 0; k < keys.length; k++) {
        resolved.push(keys[k] ?? '');
        const id = resolved.join('\u0000');
        const isLast = k === keys.length - 1;
        if (isLast && h[1] === '[[') {
          const next = (arrayCounts.get(id) ?? -1) + 1;
          arrayCounts.set(id, next);
          // A new element resets the counters of arrays nested under the previous element.
          for (const key of arrayCounts.keys()) if (key.startsWith(id + '\u0000')) arrayCounts.delete(key);
          resolved.push(next);
        } else if (arrayCounts.has(id)) {
          resolved.push(arrayCounts.get(id) ?? 0);
        }
      }
      table = resolved;
      const col = line.indexOf('[') + 1;
      if (!map.has(pk(table))) map.set(pk(table), { line: n + 1, column: col });
      continue;
    }
    const k = KEYLINE.exec(line);
    if (k && !/^\s*#/.test(line)) {
      const keyPath = [...table, ...splitTomlKey(k[1] ?? '')];
      const col = line.search(/\S/) + 1;
      if (!map.has(pk(keyPath))) map.set(pk(keyPath), { line: n + 1, column: col });
      const rest = line.slice(k[0].length);
      const ml = /^\s*("""|''')/.exec(rest);
      if (ml && ml[1] && !rest.slice(rest.indexOf(ml[1]) + 3).includes(ml[1])) multiline = ml[1];
      else depth = Math.max(0, bracketDelta(rest));
    }
  }
  return map;
}

// Net count of opening minus closing brackets/braces outside strings and comments on a line.
function bracketDelta(line: string): number {
  let d = 0;
  let q: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === '\\' && q === '"') i++;
      else if (c === q) q = null;
    } else if (c === '"' || c === "'") q = c;
    else if (c === '#') break;
    else if (c === '[' || c === '{') d++;
    else if (c === ']' || c === '}') d--;
  }
  return d;
}

// Map key for a path.
function pk(path: DocPath): string {
  return path.join('\u0000');
}

/** Parses TOML text; syntax errors carry line/column, and the locator finds the line of any key path. */
export function parseTomlLocated(text: string): TomlParseResult {
  let value: Record<string, unknown>;
  try {
    value = parseToml(text);
  } catch (e) {
    if (e instanceof TomlError) {
      const first = (e.message.split('\n')[0] ?? e.message).trim();
      return { ok: false, message: first, line: e.line, column: e.column };
    }
    throw e;
  }
  let index: Map<string, { line: number; column: number }> | undefined;
  const locator: Locator = {
    locate(path) {
      index ??= indexLines(text);
      for (let n = path.length; n > 0; n--) {
        const hit = index.get(pk(path.slice(0, n)));
        if (hit) return hit;
      }
      return undefined;
    },
  };
  return { ok: true, value, locator };
}
