// Type-aware lint for the whole monorepo: zero warnings allowed (`npm run lint`).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readFileSync } from 'node:fs';

// --- Package boundaries -------------------------------------------------------------------------------------------
// The rule, checked on the resolved file of every import (import-x/no-restricted-paths), in source and tests alike
// (.ts, .tsx, .mts):
//   1. Code of a workspace package (libs/X, apps/X: src/, test/, scripts) reaches another workspace package only
//      through that package's entry points — the files its package.json `main`/`types`/`exports` name (and their
//      src/ twins, which the tsconfig paths resolve to). Its own files it imports freely.
//   2. A cross-package test under test/<area>/ may import the source of the package(s) its area tests (TEST_AREAS)
//      and every other package through its entry points only: a CLI test never imports API source, it talks to the
//      API over HTTP or through test/support.
//   3. test/support/ (the harness that starts real APIs, workers and agents) and the package tests' use of it are
//      not restricted; a new test/<area> must be added to TEST_AREAS (unlisted areas may import no package source).
// The textual rule below (no-restricted-imports) additionally refuses import specifiers that spell another package's
// path (`../../apps/…`, `@hookwarden/x/deep`) in package source.
const WORKSPACES = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).workspaces;
const TEST_AREAS = {
  'test/api': ['apps/api'],
  'test/sso': ['apps/api'],
  'test/inventory': ['apps/api'],
  // The audit pipeline and the sync contract run from the agent's spool/client to the API's ingest/bundle routes.
  'test/audit': ['apps/api', 'apps/agent-sync'],
  'test/sync': ['apps/api', 'apps/agent-sync'],
  // High availability: the API and worker on failing-over engines, with real agents.
  'test/ha': ['apps/api', 'apps/agent-sync'],
  'test/agent': ['apps/agent-sync'],
  'test/cli': ['apps/cli'],
  // The console is built on the generated admin client: its tests also check the client's types are current.
  'test/console': ['apps/console', 'libs/admin-client'],
  'test/package': [],
  'test/scripts': [],
};

// The entry files of a workspace package, relative to it: what package.json names, plus the src/ twin of a dist/ file.
function entryFiles(dir) {
  const pkg = JSON.parse(readFileSync(new URL(`./${dir}/package.json`, import.meta.url), 'utf8'));
  const named = [pkg.main, pkg.types];
  const walk = (v) => (typeof v === 'string' ? named.push(v) : v && Object.values(v).forEach(walk));
  walk(pkg.exports);
  const out = new Set(['./package.json']);
  for (const f of named.filter((f) => typeof f === 'string' && !f.endsWith('package.json'))) {
    const rel = `./${f.replace(/^\.\//, '')}`;
    out.add(rel);
    out.add(rel.replace(/\.js$/, '.d.ts'));
    out.add(rel.replace(/^\.\/dist\//, './src/').replace(/(\.d)?\.ts$|\.js$/, '.ts'));
  }
  return [...out];
}

// Zones refusing, from `target`, every workspace package but `allowed` except through its entry points.
function boundaryZones(target, allowed) {
  return WORKSPACES.filter((w) => !allowed.includes(w)).map((from) => ({
    target,
    from: `./${from}`,
    except: entryFiles(from),
    message: `Import ${from} through its entry points (@hookwarden/…, its package.json exports), never its files (see eslint.config.mjs).`,
  }));
}

const BOUNDARY_ZONES = [
  ...WORKSPACES.flatMap((w) => boundaryZones(`./${w}/**/*`, [w])),
  ...Object.entries(TEST_AREAS).flatMap(([area, allowed]) => boundaryZones(`./${area}/**/*`, allowed)),
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/fixtures/**',
      'coverage/**',
      '**/*.cjs',
      'libs/admin-client/src/schema.ts',
      'libs/admin-client/src/enums.ts',
      'apps/cli/bin/**',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './apps/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['./tsconfig.json', './apps/console/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: BOUNDARY_ZONES }],
    },
  },
  {
    files: ['libs/*/src/**/*.{ts,tsx,mts}', 'apps/*/src/**/*.{ts,tsx,mts}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // `@hookwarden/hook-core/cli` `/browser`, `/http` and `/transport` are entry points too (its package.json `exports` map declares them).
              group: [
                '**/libs/**',
                '**/apps/**',
                '@hookwarden/*/*',
                '!@hookwarden/hook-core/cli',
                '!@hookwarden/hook-core/browser',
                '!@hookwarden/hook-core/http',
                '!@hookwarden/hook-core/transport',
              ],
              message:
                'Import other packages through their entry points (@hookwarden/..., exports map), never by path.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/**/*.ts'],
    rules: {
      // Nest injects by class reference: type-only imports would erase the DI token.
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // Scripts and benches (.mjs): type-aware too, through tsconfig.scripts.json (allowJs). Plain JavaScript has no
    // declared types, so the rules about `any` flowing around are off; promise, unused and import rules apply.
    files: ['**/*.mjs'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.scripts.json'], tsconfigRootDir: import.meta.dirname },
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
