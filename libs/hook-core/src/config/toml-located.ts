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

/** A node of the key trie: where the key is first defined, its children, and (for arrays of tables) the count. */
interface KeyNode {
  loc?: { line: number; column: number };
  children?: Map<string | number, KeyNode>;
  count?: number;
}

// Child node (created on demand), located at `loc` when it has no location yet.
function child(node: KeyNode, key: string | number, loc: { line: number; column: number }): KeyNode {
  node.children ??= new Map();
  let c = node.children.get(key);
  if (!c) {
    c = { loc };
    node.children.set(key, c);
  }
  return c;
}

/** Longest line the locator indexes (longer lines get the location of their table). */
const MAX_INDEXED_LINE = 4096;

// Indexes where every table and key is defined (array-of-table elements by index), in one pass over the lines.
function indexLines(text: string): KeyNode {
  const root: KeyNode = {};
  let table = root;
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
    const first = line.trimStart()[0];
    if (first === undefined || first === '#') continue;
    // The header/key regexes backtrack on pathological lines: lines longer than any real key line are not indexed.
    if (line.length > MAX_INDEXED_LINE) {
      depth = Math.max(0, bracketDelta(line));
      continue;
    }
    if (first === '[') {
      const h = HEADER.exec(line);
      if (!h) continue;
      const loc = { line: n + 1, column: line.indexOf('[') + 1 };
      const keys = splitTomlKey(h[2] ?? '');
      let node = root;
      keys.forEach((k, i) => {
        node = child(node, k, loc);
        if (i === keys.length - 1 && h[1] === '[[') {
          node.count = (node.count ?? -1) + 1;
          node = child(node, node.count, loc);
        } else if (node.count !== undefined) node = child(node, node.count, loc);
      });
      table = node;
      continue;
    }
    const k = KEYLINE.exec(line);
    if (!k) continue;
    const loc = { line: n + 1, column: line.search(/\S/) + 1 };
    let node = table;
    for (const part of splitTomlKey(k[1] ?? '')) node = child(node, part, loc);
    const rest = line.slice(k[0].length);
    const ml = /^\s*("""|''')/.exec(rest);
    if (ml && ml[1] && !rest.slice(rest.indexOf(ml[1]) + 3).includes(ml[1])) multiline = ml[1];
    else depth = Math.max(0, bracketDelta(rest));
  }
  return root;
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

/** A locator over TOML text (the line index is built on first use; the text is not parsed). */
export function tomlLocator(text: string): Locator {
  let root: KeyNode | undefined;
  return {
    locate(path: DocPath) {
      root ??= indexLines(text);
      let node: KeyNode | undefined = root;
      let found: { line: number; column: number } | undefined;
      for (const part of path) {
        node = node?.children?.get(part);
        if (!node) break;
        if (node.loc) found = node.loc;
      }
      return found;
    },
  };
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
    // Anything else (e.g. a RangeError on hostile input) is still a located refusal, never a crash.
    return { ok: false, message: `cannot parse: ${(e as Error).message}`, line: 1, column: 1 };
  }
  return { ok: true, value, locator: tomlLocator(text) };
}
