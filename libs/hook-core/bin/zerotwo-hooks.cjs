#!/usr/bin/env node
// zerotwo-hooks in a checkout: runs the CLI's bundle with its code cache (scripts/run-bin.cjs; made from the compiled
// dist/ and remade when that is newer), compiling this package first if it never was.
// (npm links workspace bins at install time, before any build: this checked-in file is what it links.)
'use strict';
const path = require('node:path');

const pkg = path.resolve(__dirname, '..');

// Compiles this package (first run in a checkout), or exits saying how to.
function compile(main) {
  const { spawnSync } = require('node:child_process');
  const { existsSync } = require('node:fs');
  const repo = path.resolve(pkg, '..', '..');
  const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  const where = path.relative(repo, pkg);
  if (!existsSync(tsc)) {
    process.stderr.write(`zerotwo-hooks: ${main} is missing; build it with \`npm run build\` in ${repo}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `zerotwo-hooks: first run in this checkout, building ${where} (\`npm run build\` builds everything)\n`,
  );
  const tsconfig = path.join(pkg, 'tsconfig.build.json');
  const built = spawnSync(process.execPath, [tsc, '-b', tsconfig], { stdio: ['ignore', 2, 2] });
  if (built.status !== 0 || !existsSync(main)) {
    process.stderr.write(`zerotwo-hooks: building ${where} failed; run \`npm run build\` in ${repo} to see why\n`);
    process.exit(1);
  }
}

require(path.join(pkg, '..', '..', 'scripts', 'run-bin.cjs')).run('zerotwo-hooks', compile);
