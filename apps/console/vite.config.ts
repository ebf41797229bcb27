// Builds the console into dist/ for the API to serve under /console: hashed assets, no inline script, one chunk
// per page (React.lazy), the editor (CodeMirror) and chart (uPlot) only in the pages that use them.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const r = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The workspace packages the console bundles, from their (browser-safe) TypeScript sources (hook-core itself
    // builds to CommonJS for Node).
    alias: {
      '@hookwarden/hook-core/browser': r('../../libs/hook-core/src/browser.ts'),
      '@hookwarden/admin-client': r('../../libs/admin-client/src/index.ts'),
      '@hookwarden/hook-core/http': r('../../libs/hook-core/src/wire/http.ts'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    // Any asset, however small, is a file of its own: a data: URL script would need a laxer CSP.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 800,
  },
});
