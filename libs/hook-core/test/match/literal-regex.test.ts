// Patterns of word characters, `|`, `^` and `$` are tested by a JavaScript RegExp (match/regex.ts) without loading
// RE2: on every subject both must agree.
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { compileLinearRegex, REDACTED } from '../support/core';

const PATTERNS = [
  '^Bash$',
  'Bash',
  '^Read|Write$',
  'Edit|',
  '|',
  '^',
  '$',
  '^$',
  '$^',
  'a^b',
  '^^Bash$$',
  'mcp__s__t',
  '',
];
const SUBJECTS = [
  'Bash',
  'bash',
  'Bash\n',
  '\nBash',
  'xBashx',
  'Read',
  'Write',
  'ReadWrite',
  'Edit',
  '',
  'a^b',
  'mcp__s__t',
  '😀Bash',
];

describe('literal-alternation patterns', () => {
  it('test() agrees with RE2 on every subject, and replacing goes through RE2', () => {
    for (const p of PATTERNS) {
      const c = compileLinearRegex(p);
      if (!c.ok) throw new Error(p);
      const re = RE2JS.compile(p);
      for (const s of SUBJECTS) {
        expect(c.regex.test(s), `${p} on ${JSON.stringify(s)}`).toBe(re.test(s));
        expect(c.regex.replaceAll(s, REDACTED)).toBe(re.matcher(s).replaceAll(RE2JS.quoteReplacement(REDACTED)));
      }
    }
  });
});
