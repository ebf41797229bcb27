import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const r = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [
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
      '@hookwarden/hook-core': r('./libs/hook-core/src/index.ts'),
      '@hookwarden/admin-client': r('./libs/admin-client/src/index.ts'),
      '@hookwarden/agent-sync': r('./apps/agent-sync/src/index.ts'),
      '@hookwarden/cli': r('./apps/cli/src/index.ts'),
    },
  },
  test: {
    include: [
      'libs/*/test/**/*.test.ts',
      'libs/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: [r('./test/global-setup.ts')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
