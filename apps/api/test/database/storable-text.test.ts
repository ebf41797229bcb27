// Lossless escaping of text PostgreSQL cannot store, and column bounds.
import { describe, expect, it } from 'vitest';
import {
  boundColumn,
  decodeDeep,
  decodeText,
  ESCAPE_MARK,
  escapeDeep,
  escapeText,
  jsonMayNeedEscape,
  needsEscape,
} from '../../src/database/storable-text';

describe('storable text', () => {
  const hostile = ['a\u0000b', '\ud800', 'x\udc00y', '\ud800\u0000\udfff', `${ESCAPE_MARK}looks escaped`, '100% %0000'];

  it('escapes NUL, lone surrogates and mark-prefixed text into storable text that decodes back exactly', () => {
    for (const s of hostile) {
      const e = escapeText(s);
      expect(e.startsWith(ESCAPE_MARK) || !needsEscape(s)).toBe(true);
      expect(e.includes('\u0000')).toBe(false);
      expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(e)).toBe(false);
      expect(decodeText(e)).toBe(s);
    }
  });

  it('leaves ordinary text (paired surrogates included) untouched', () => {
    for (const s of ['plain', 'emoji 😀', '50% off', '']) {
      expect(escapeText(s)).toBe(s);
      expect(decodeText(s)).toBe(s);
    }
  });

  it('escapes keys and values deep in a record and decodes them back', () => {
    const v = { sessionId: 'a\u0000', nested: [{ 'k\u0000': '\ud800' }], n: 1, ok: 'fine' };
    const { value, changed } = escapeDeep(v);
    expect(changed).toBe(true);
    expect(JSON.stringify(value).includes('\\u0000')).toBe(false);
    expect(decodeDeep(value)).toEqual(v);
    expect(escapeDeep({ a: 'b' }).changed).toBe(false);
  });

  it('pre-checks JSON text for escapes that may need it', () => {
    expect(jsonMayNeedEscape(JSON.stringify({ a: 'x\u0000' }))).toBe(true);
    expect(jsonMayNeedEscape(JSON.stringify({ a: '\ud800' }))).toBe(true);
    expect(jsonMayNeedEscape(JSON.stringify({ a: 'plain 😀' }))).toBe(false);
  });

  it('bounds column text without splitting a surrogate pair', () => {
    expect(boundColumn('abc', 5)).toBe('abc');
    expect(boundColumn('abcdef', 3)).toBe('abc');
    expect(boundColumn('ab😀', 3)).toBe('ab');
    expect(boundColumn(null)).toBeNull();
  });
});
