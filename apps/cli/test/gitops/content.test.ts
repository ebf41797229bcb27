// The CLI's offline version content equals what the API computes (same hook-core validator, same digest formula),
// so plan compares digests with the server's exactly.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareVersion } from '../../../api/src/policies/version-content';
import { readLayout } from '../../src/gitops/layout';

const EXAMPLE = path.resolve(__dirname, '../../../../examples/gitops');

describe('version content', () => {
  it('the example layout is valid and its digests equal the API’s for the same request', async () => {
    const desired = await readLayout(EXAMPLE);
    expect(desired.groups.map((g) => g.name).sort()).toEqual(['canary', 'default', 'engineering']);
    expect(desired.policies.map((p) => p.name)).toEqual(['baseline', 'canary-checks']);
    for (const p of desired.policies) {
      const api = prepareVersion({
        toml: p.content.sourceText,
        files: p.content.files.map((f) => ({
          path: f.path,
          content: f.content.toString('base64'),
          encoding: 'base64',
          mode: f.mode,
        })),
        message: '',
      });
      expect(api.ok).toBe(true);
      if (!api.ok) continue;
      expect(p.content.digest).toBe(api.version.digest);
      expect(p.content.canonicalToml).toBe(api.version.toml);
    }
    const baseline = desired.policies[0]!;
    expect(baseline.content.files.map((f) => [f.path, f.mode.toString(8)])).toEqual([
      ['block-dangerous.sh', '755'],
      ['lib/common.sh', '644'],
      ['session-log.sh', '755'],
    ]);
    expect(baseline.rollout).toEqual({
      strategy: 'staged',
      rings: [5, 25, 100],
      ringIntervalSec: 3600,
      maxApplyFailureRate: 0.02,
      maxHookFailureRate: 0.1,
      minHookRuns: 50,
    });
    expect((await fs.stat(path.join(EXAMPLE, 'policies/baseline/files/block-dangerous.sh'))).mode & 0o111).not.toBe(0);
  });
});
