import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const r = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/**
 * The packages load some modules on demand with `require('./x')` (a command's code, zod, RE2: see
 * scripts/run-bin.cjs); under vitest such a call becomes a static import of the same module, so tests see one module
 * instance, as the compiled code and the bundles do.
 */
const LAZY_REQUIRE = /\brequire\((['"])(\.{1,2}\/[^'"]+)\1\)/g;
const lazyRequires = {
  name: 'hookwarden-lazy-require',
  enforce: 'pre' as const,
  transform(code: string, id: string) {
    if (!/\/(libs|apps)\/[^/]+\/src\/.*\.ts$/.test(id) || !code.includes('require(')) return null;
    const specs: string[] = [];
    const body = code.replace(LAZY_REQUIRE, (_m, _q, spec: string) => {
      if (!specs.includes(spec)) specs.push(spec);
      return `__lazy${specs.indexOf(spec)}`;
    });
    if (specs.length === 0) return null;
    return { code: specs.map((s, i) => `import * as __lazy${i} from '${s}';\n`).join('') + body, map: null };
  },
};

/** Every test file. */
const ALL = [
  'libs/*/test/**/*.test.ts',
  'libs/*/src/**/*.test.ts',
  'apps/*/test/**/*.test.ts',
  'apps/*/src/**/*.test.ts',
  'test/**/*.test.ts',
];
/**
 * The heavy lane: HA topologies, Windows under Wine, the console in Chromium — and the CLI's end-to-end suites, which
 * balance the two lanes (alone, the other lane took 1.5 times as long as this one in CI).
 */
const HEAVY = [
  'test/ha/**/*.test.ts',
  'test/windows/**/*.test.ts',
  'test/console/**/*.test.ts',
  'test/cli/**/*.test.ts',
];
const EXCLUDE = ['**/node_modules/**', '**/dist/**'];

export default defineConfig({
  plugins: [
    lazyRequires,
    // Nest's dependency injection needs decorator metadata, which esbuild/oxc do not emit.
    swc.vite({
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'es6' },
    }),
  ],
  resolve: {
    alias: {
      // Subpath aliases first: an alias also matches `<name>/…`, so the bare name must come after them.
      '@hookwarden/hook-core/cli': r('./libs/hook-core/src/cli/index.ts'),
      '@hookwarden/hook-core/browser': r('./libs/hook-core/src/browser.ts'),
      '@hookwarden/hook-core/http': r('./libs/hook-core/src/wire/http.ts'),
      '@hookwarden/hook-core/transport': r('./libs/hook-core/src/wire/transport.ts'),
      '@hookwarden/hook-core': r('./libs/hook-core/src/index.ts'),
      '@hookwarden/admin-client': r('./libs/admin-client/src/index.ts'),
      '@hookwarden/agent-sync': r('./apps/agent-sync/src/index.ts'),
      '@hookwarden/cli': r('./apps/cli/src/index.ts'),
    },
  },
  test: {
    globalSetup: [r('./test/global-setup.ts')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // Two lanes (scripts/test.mjs runs them side by side, one file at a time each): the suites that start whole
    // topologies or a browser or Wine, and everything else. Two heavy files never run at once.
    projects: [
      { extends: true, test: { name: 'heavy', include: HEAVY, exclude: EXCLUDE } },
      { extends: true, test: { name: 'main', include: ALL, exclude: [...EXCLUDE, ...HEAVY] } },
    ],
  },
});
