import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_SHARED } from '../../../../test/support/shared';
import { CORPUS, summarize, type CorpusSummary } from './corpus/summarize';

const manifest = (HAS_SHARED ? readFileSync(join(CORPUS, 'MANIFEST.tsv'), 'utf8') : '')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .map(([file, , , , format]) => ({ file: file ?? '', format: format ?? '' }));
const expected = JSON.parse(readFileSync(join(__dirname, 'corpus', 'expected.json'), 'utf8')) as Record<
  string,
  CorpusSummary
>;

describe.skipIf(!HAS_SHARED)('real-world corpus', () => {
  it('covers all 67 files', () => {
    expect(manifest).toHaveLength(67);
    expect(Object.keys(expected).sort()).toEqual(manifest.map((m) => m.file).sort());
  });

  for (const { file, format } of manifest) {
    it(`${file} loads, lists and lints as reviewed`, () => {
      expect(summarize(file, format)).toEqual(expected[file]);
    });
  }
});
