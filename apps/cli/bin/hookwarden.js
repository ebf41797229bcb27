#!/usr/bin/env node
// Checked-in launcher so `npx hookwarden` works right after `npm ci` (npm links a workspace bin only if it exists).
'use strict';
try {
  require('../dist/cli/main.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write('hookwarden: the CLI is not built yet: run `npm run build` first\n');
    process.exit(1);
  }
  throw err;
}
