// Surgical edits of a TOML text: set one key inside one table, keeping every other byte (comments, formatting).
import { parse } from 'smol-toml';
import { splitTomlKey } from '../config/toml-located';

const HEADER = /^\s*\[(?!\[)\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\]"'#])+?)\s*\]\s*(?:#.*)?$/;
const ANY_HEADER = /^\s*\[/;

// Renders a TOML key part (bare when possible, else a basic string).
function keyPart(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
}

// Renders a TOML value for the few types trust state uses.
function tomlValue(v: string | boolean): string {
  return typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

// Whether a line is inside a multi-line string is ignored: trust tables hold only simple keys.
function sameKey(a: string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Sets `key = value` in table `[table...]`, appending the table when absent; verifies the result parses to it. */
export function setTomlTableKey(text: string, table: readonly string[], key: string, value: string | boolean): string {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const m = HEADER.exec(lines[i] ?? '');
    if (m && sameKey(splitTomlKey(m[1] ?? ''), table)) {
      start = i;
      break;
    }
  }
  const assignment = `${keyPart(key)} = ${tomlValue(value)}`;
  let out: string;
  if (start >= 0) {
    let end = lines.length;
    for (let i = start + 1; i < lines.length; i++) {
      if (ANY_HEADER.test(lines[i] ?? '')) {
        end = i;
        break;
      }
    }
    const keyRe = new RegExp(`^\\s*(?:${escapeRe(keyPart(key))}|${escapeRe(JSON.stringify(key))})\\s*=`);
    const existing = lines.slice(start + 1, end).findIndex((l) => keyRe.test(l));
    if (existing >= 0) {
      const i = start + 1 + existing;
      const indent = /^\s*/.exec(lines[i] ?? '')?.[0] ?? '';
      lines[i] = `${indent}${assignment}`;
    } else {
      let at = end;
      while (at > start + 1 && (lines[at - 1] ?? '').trim() === '') at--;
      lines.splice(at, 0, assignment);
    }
    out = lines.join(nl);
  } else {
    const header = `[${table.map(keyPart).join('.')}]`;
    const base = text === '' || text.endsWith('\n') ? text : text + nl;
    out = `${base}${base.trim() === '' ? '' : nl}${header}${nl}${assignment}${nl}`;
  }
  verify(out, table, key, value);
  return out;
}

// Escapes for RegExp.
function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Parses the edited text and checks the value landed where intended.
function verify(text: string, table: readonly string[], key: string, value: string | boolean): void {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new Error(
      `refusing to write config.toml: the edit would make it invalid (${(e as Error).message.split('\n')[0]})`,
    );
  }
  let cur: unknown = doc;
  for (const k of [...table, key])
    cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[k] : undefined;
  if (cur !== value)
    throw new Error(`refusing to write config.toml: could not set ${[...table, key].join('.')} safely`);
}
