// Bounded-depth JSON (common/json-depth): nestedDeeperThan agrees with the real nesting of brackets outside strings,
// whether the text has few opening brackets (judged by counting) or many (judged by the scan).
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/common/json-depth';

const nest = (n: number, open = '[', close = ']'): string => open.repeat(n) + close.repeat(n);

describe('nestedDeeperThan', () => {
  it('refuses one level past the limit and accepts the limit itself, arrays, objects and both', () => {
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedDeeperThan('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedDeeperThan('{"a":'.repeat(MAX_JSON_DEPTH) + '1' + '}'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan('[{"a":'.repeat(51) + '1' + '}]'.repeat(51))).toBe(true);
    expect(nestedDeeperThan(nest(3), 2)).toBe(true);
    expect(nestedDeeperThan(nest(2), 2)).toBe(false);
  });

  it('counts many brackets side by side as shallow, and ignores brackets inside strings', () => {
    const wide = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, v: [i] })));
    expect(nestedDeeperThan(wide)).toBe(false);
    const inString = JSON.stringify({ s: '['.repeat(10_000) + '{'.repeat(10_000) });
    expect(nestedDeeperThan(inString)).toBe(false);
    const escaped = JSON.stringify({ s: '\\"' + '['.repeat(500) });
    expect(nestedDeeperThan(escaped)).toBe(false);
    expect(nestedDeeperThan(`[${inString},${nest(MAX_JSON_DEPTH)}]`)).toBe(true);
  });

  it('accepts texts without brackets and empty text', () => {
    expect(nestedDeeperThan('')).toBe(false);
    expect(nestedDeeperThan('"just a string"')).toBe(false);
    expect(nestedDeeperThan('12345')).toBe(false);
  });
});
