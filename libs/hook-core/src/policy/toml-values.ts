// TOML values JavaScript numbers cannot tell apart: a float with an integral value (`60.0`, `1e3`, `-0.0`) is kept
// as a TomlFloat so the canonical rendering writes a float again; and the comments the canonical form drops.
import { parse as parseToml } from 'smol-toml';
import { osRandomBytes } from '../record/canonical';

/** A TOML float whose value is integral (JSON renders it as the number; renderPolicyToml as a TOML float). */
export class TomlFloat {
  constructor(readonly value: number) {}

  // The number, for JSON.
  toJSON(): number {
    return this.value;
  }

  // The number, for arithmetic and comparisons.
  valueOf(): number {
    return this.value;
  }

  /** TOML text of the float (`60.0`, `-0.0`, `1e+21`). */
  toString(): string {
    if (Object.is(this.value, -0)) return '-0.0';
    return Number.isSafeInteger(this.value) ? this.value.toFixed(1) : String(this.value);
  }
}

// Is this a plain object (a TOML table)?
function isTable(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

// Walks `value` and its typed twin (integers as bigint) side by side, replacing integral floats by TomlFloat.
function mark(value: unknown, typed: unknown): unknown {
  if (typeof typed === 'number' && typeof value === 'number' && Number.isInteger(typed)) return new TomlFloat(value);
  if (Array.isArray(value) && Array.isArray(typed)) {
    for (let i = 0; i < value.length; i++) value[i] = mark(value[i], typed[i]);
  } else if (isTable(value) && isTable(typed)) {
    for (const k of Object.keys(value)) value[k] = mark(value[k], typed[k]);
  }
  return value;
}

/**
 * Marks the integral floats of a parsed TOML document (in place) as TomlFloat, except under the `skip` top-level keys
 * (the hooks schema reads plain numbers there). `text` must be the document `doc` was parsed from.
 */
export function markTomlFloats(doc: Record<string, unknown>, text: string, skip: readonly string[]): void {
  // Cheap exit: no float token can be integral without a `.`, an exponent, or -0.
  if (!/[0-9][.eE]|-0/.test(text)) return;
  const typed = parseToml(text, { integersAsBigInt: true }) as Record<string, unknown>;
  for (const k of Object.keys(doc)) if (!skip.includes(k)) doc[k] = mark(doc[k], typed[k]);
}

/** Replaces TomlFloat values by placeholders for a TOML stringifier; `restore` writes the floats into its output. */
export function floatPlaceholders(): { replace: (v: TomlFloat) => string; restore: (toml: string) => string } {
  const nonce = osRandomBytes(8).toString('hex');
  const texts: string[] = [];
  return {
    replace: (v) => {
      texts.push(v.toString());
      return `__hw_float_${nonce}_${texts.length - 1}__`;
    },
    restore: (toml) =>
      texts.length === 0
        ? toml
        : toml.replace(new RegExp(`"__hw_float_${nonce}_(\\d+)__"`, 'g'), (_m, i: string) => texts[Number(i)]!),
  };
}

/** Where the first comment of a TOML text is (1-based line and column), or null: one linear scan, strings skipped. */
export function findTomlComment(text: string): { line: number; column: number } | null {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      i++;
    } else if (c === '#') {
      return { line, column: i - lineStart + 1 };
    } else if (c === '"' || c === "'") {
      const multi = text.startsWith(c.repeat(3), i);
      const close = multi ? c.repeat(3) : c;
      i += close.length;
      while (i < n) {
        const d = text[i]!;
        if (d === '\\' && c === '"') {
          if (text[i + 1] === '\n') {
            line++;
            lineStart = i + 2;
          }
          i += 2;
          continue;
        }
        if (d === '\n') {
          if (!multi) break;
          line++;
          lineStart = i + 1;
        }
        if (text.startsWith(close, i)) {
          i += close.length;
          // A multi-line string may end with up to two extra quotes (`""""`).
          while (multi && text[i] === c) i++;
          break;
        }
        i++;
      }
    } else i++;
  }
  return null;
}
