// The package-boundary lint (eslint.config.mjs) holds in tests and .tsx too: the repository's own ESLint
// configuration is run on import lines placed in real files' paths (text given to ESLint, nothing written), and an
// import of another app's source from a cross-package test, a package test or a console page is refused, while the
// imports the rule allows (a test area's own package, entry points, hook-core's browser subpath) pass.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const BOUNDARY_RULES = new Set(['import-x/no-restricted-paths', 'no-restricted-imports']);
let eslint: ESLint;

beforeAll(() => {
  // Only the boundary rules, without the type-aware program (seconds instead of a minute): the zones and the
  // resolver are the configuration's own.
  eslint = new ESLint({
    cwd: ROOT,
    ruleFilter: ({ ruleId }) => BOUNDARY_RULES.has(ruleId),
    overrideConfig: { languageOptions: { parserOptions: { project: false, projectService: false } } },
  });
});

// The boundary messages ESLint gives `code` as if it were the file at `file` (relative to the repository).
async function boundaryMessages(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => BOUNDARY_RULES.has(m.ruleId ?? '')).map((m) => `${m.ruleId}: ${m.message}`);
}

const use = (spec: string, name: string) => `import { ${name} } from '${spec}';\nexport const used = ${name};\n`;

describe('boundary lint', () => {
  it.each([
    // A cross-package CLI test importing the API's source.
    ['test/cli/gitops-contained.test.ts', use('../../apps/api/src/auth/principal', 'hashSecret'), 'apps/api'],
    // A cross-package test of another area reaching the CLI's source.
    ['test/api/route-statuses.test.ts', use('../../apps/cli/src/gitops/contained', 'ContainedDir'), 'apps/cli'],
    // A package's own test importing another app's source.
    ['apps/cli/test/cli/filters.test.ts', use('../../../api/src/auth/principal', 'hashSecret'), 'apps/api'],
    // A console page (.tsx) importing the CLI's source, and hook-core's files instead of its browser entry.
    ['apps/console/src/pages/groups.tsx', use('../../../cli/src/commands/filters', 'CLI_LISTS'), 'apps/cli'],
    [
      'apps/console/src/pages/groups.tsx',
      use('../../../../libs/hook-core/src/policy/render', 'renderPolicyToml'),
      'libs/hook-core',
    ],
  ])('%s importing another package’s files is refused', async (file, code, pkg) => {
    const messages = await boundaryMessages(file, code);
    expect(messages.length, messages.join('\n')).toBeGreaterThan(0);
    expect(messages.join('\n')).toContain(`Import ${pkg} through its entry points`);
  });

  it.each([
    // A test area's own package, and other packages through their entry points.
    ['test/cli/gitops-contained.test.ts', use('../../apps/cli/src/gitops/contained', 'ContainedDir')],
    ['test/cli/gitops-contained.test.ts', use('@hookwarden/hook-core', 'canonicalJson')],
    ['apps/console/src/pages/groups.tsx', use('@hookwarden/hook-core/browser', 'canonicalJson')],
    ['apps/console/src/pages/groups.tsx', use('@hookwarden/admin-client', 'listRoutes')],
  ])('%s: an allowed import passes', async (file, code) => {
    expect(await boundaryMessages(file, code)).toEqual([]);
  });
});
