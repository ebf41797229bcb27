// Regenerates expected.json (review every change by hand): npx tsx libs/hook-core/test/config/corpus/generate.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, summarize, type CorpusSummary } from './summarize';

const out: Record<string, CorpusSummary> = {};
for (const line of readFileSync(join(CORPUS, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1)) {
  const [file, , , , format] = line.split('\t');
  if (file && format) out[file] = summarize(file, format);
}
writeFileSync(join(__dirname, 'expected.json'), `${JSON.stringify(out, null, 2)}\n`);
