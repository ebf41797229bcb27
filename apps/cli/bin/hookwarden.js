#!/usr/bin/env node
// Checked-in launcher so `npx hookwarden` works right after `npm ci` (npm links a workspace bin only if it exists): runs
// the CLI's bundle with its code cache (scripts/run-bin.cjs; made from the compiled dist/, remade when that is newer).
'use strict';
const path = require('node:path');

require(path.join(__dirname, '..', '..', '..', 'scripts', 'run-bin.cjs')).run('hookwarden', () => {
  process.stderr.write('hookwarden: the CLI is not built yet: run `npm run build` first\n');
  process.exit(1);
});
