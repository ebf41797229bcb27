// Each default redaction pattern is compiled only for a text its hint finds (record/capture.ts): the hints must be
// necessary conditions, so redacting with them gives what redacting with the patterns alone gives.
import { describe, expect, it } from 'vitest';
import { compileLinearRegex, compileRedactions, DEFAULT_REDACTIONS, REDACTED, redactText } from '../support/core';
import { DEFAULT_REDACTION_HINTS } from '../../src/record/capture';

const SAMPLES = [
  'ls -la && git status',
  '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----',
  'key AKIAABCDEFGHIJKLMNOP and ASIAABCDEFGHIJKLMNOP',
  'AWS_SECRET_ACCESS_KEY=abcdefghijklmnopqrstuvwxyz0123456789ABCD',
  'aws_secret_access_key: "abcdefghijklmnopqrstuvwxyz0123456789ABCD"',
  'ghp_abcdefghijklmnopqrstuvwxyz github_pat_abcdefghijklmnopqrstuvwxyz',
  'glpat-abcdefghijklmnopqrstuv xoxb-1234567890-abc',
  'sk-abcdefghijklmnopqrstuvwxyz sk-ant-abcdefghijklmnopqrstuvwx',
  'AIzaabcdefghijklmnopqrstuvwxyz0123456789',
  'eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2Q',
  'Authorization: Bearer abcdefghijkl',
  'BEARER   zyxwvutsrqpo',
  'password=hunter2 PWD: x TOKEN="abc" api-key=1 Access_Key=2 client_secret=3',
  'https://user:pass@example.com/x and postgres://u:p@h/db',
  'pa\u017F\u017Fword=hunter2 to\u212Aen=x', // non-ASCII case folding (ſ → s, K → k)
  '',
];

describe('default redaction hints', () => {
  it('there is one hint per default pattern, and every default pattern compiles', () => {
    expect(DEFAULT_REDACTION_HINTS).toHaveLength(DEFAULT_REDACTIONS.length);
    for (const src of DEFAULT_REDACTIONS) expect(compileLinearRegex(src).ok, src).toBe(true);
  });

  it('a text without a pattern’s hint has no match of that pattern; redaction is the same as without hints', () => {
    const { patterns } = compileRedactions({ redactPatterns: [], useDefaultRedact: true });
    for (const text of SAMPLES) {
      let plain = text;
      DEFAULT_REDACTIONS.forEach((src, i) => {
        const c = compileLinearRegex(src);
        if (!c.ok) throw new Error(src);
        if (c.regex.test(text)) expect(DEFAULT_REDACTION_HINTS[i]!.test(text) || /[^\x00-\x7f]/.test(text)).toBe(true);
        plain = c.regex.replaceAll(plain, REDACTED);
      });
      expect(redactText(text, patterns)).toBe(plain);
    }
    expect(redactText(SAMPLES[12]!, patterns)).not.toContain('hunter2');
  });
});
