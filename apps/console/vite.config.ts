// Builds the console into dist/ for the API to serve under /console: hashed assets, no inline script, one chunk
// per page (React.lazy), the editor (CodeMirror) and chart (uPlot) only in the pages that use them.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  resolve: {
    // hook-core's browser-safe entry, compiled from its source (the package itself builds to CommonJS for Node).
    alias: {
      '@hookwarden/hook-core/browser': fileURLToPath(new URL('../../libs/hook-core/src/browser.ts', import.meta.url)),
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
