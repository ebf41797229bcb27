// Structural bounds of a policy value and the storable-text rule.
import { describe, expect, it } from 'vitest';
import { checkStructure, isStorableText, MAX_POLICY_DEPTH } from '../../src/versions/structure';

describe('isStorableText', () => {
  it('refuses NUL and lone surrogates, accepts paired ones', () => {
    expect(isStorableText('plain ✓ 😀')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('a\uD800b')).toBe(false);
    expect(isStorableText('a\uDC00')).toBe(false);
  });
});

describe('checkStructure', () => {
  it('names too-deep values and unstorable strings and keys at their document paths', () => {
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_POLICY_DEPTH; i++) deep = [deep];
    expect(checkStructure({ ok: [1, 'x'], deep })).toEqual([
      expect.objectContaining({ code: 'too_deep', path: `$.deep${'[0]'.repeat(MAX_POLICY_DEPTH)}` }),
    ]);
    expect(checkStructure({ list: ['a', 'b\u0000'] })).toEqual([
      expect.objectContaining({ code: 'invalid_text', path: '$.list[1]' }),
    ]);
    expect(checkStructure({ 'bad key\u0000': 1 })).toEqual([
      expect.objectContaining({ code: 'invalid_text', path: '$["bad key\\u0000"]' }),
    ]);
  });

  it('stops at 50 problems on a hostile value (bounded output)', () => {
    expect(checkStructure(Array.from({ length: 500 }, () => '\u0000'))).toHaveLength(50);
  });
});
