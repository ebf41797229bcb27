// The CLI's offline version content: the example layout reads as expected, and content the API refuses is refused
// offline, located at the managed file. (That its digests equal the API's is checked against a real API in
// test/cli/content-parity.test.ts: a package test imports no other package's source.)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareLocalVersion, sha256Hex } from '../../src/gitops/content';
import { readLayout } from '../../src/gitops/layout';

const EXAMPLE = path.resolve(__dirname, '../../../../examples/gitops');

describe('version content', () => {
  it('the example layout is valid and reads as written', async () => {
    const desired = await readLayout(EXAMPLE);
    expect(desired.groups.map((g) => g.name).sort()).toEqual(['canary', 'default', 'engineering']);
    expect(desired.policies.map((p) => p.name)).toEqual(['baseline', 'canary-checks']);
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
      minReportingEndpoints: 3,
    });
    expect((await fs.stat(path.join(EXAMPLE, 'policies/baseline/files/block-dangerous.sh'))).mode & 0o111).not.toBe(0);
  });

  it('refuses, located at the managed file, the content the API refuses (hook-core bundle rules, not a copy)', () => {
    const toml = '[hooks]\nmanaged_dir = "/opt/hw"\n';
    const cases: Array<{ files: string[]; code: RegExp; at: string }> = [
      { files: ['A.sh', 'a.sh'], code: /duplicate|fold|case/i, at: 'files/a.sh' },
      { files: ['x', 'x/y.sh'], code: /directory/i, at: 'files/x/y.sh' },
      { files: ['bad\nname.sh'], code: /control|unsafe|path/i, at: 'files/bad\nname.sh' },
    ];
    for (const c of cases) {
      const files = c.files.map((p) => ({ path: p, content: Buffer.from('#!/bin/sh\n'), mode: 0o755, sha256: '' }));
      for (const f of files) f.sha256 = sha256Hex(f.content);
      const local = prepareLocalVersion(toml, files, 'requirements.toml', (p) => `files/${p}`);
      expect(local.ok, c.files.join(' + ')).toBe(false);
      if (local.ok) continue;
      const located = local.problems.filter((p) => p.file?.startsWith('files/'));
      expect(located.length, JSON.stringify(local.problems)).toBeGreaterThan(0);
      expect(located.map((p) => `${p.code} ${p.message}`).join('\n')).toMatch(c.code);
      expect(
        located.some((p) => p.file === c.at),
        JSON.stringify(located),
      ).toBe(true);
    }
  });
});
