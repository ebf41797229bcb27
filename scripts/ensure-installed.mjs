// Lets `npm start`, `npm test` and `npm run demo` work right after cloning: when node_modules is missing, or older
// than package-lock.json (a pull changed the dependencies), it installs exactly the locked dependencies (`npm ci`)
// first. Uses only Node built-ins, so it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// True when the installed tree matches the lockfile (npm writes node_modules/.package-lock.json on every install).
function installed() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker) || !existsSync(path.join(root, 'node_modules', '.bin'))) return false;
  return statSync(marker).mtimeMs >= statSync(path.join(root, 'package-lock.json')).mtimeMs;
}

// Runs `npm ci` when the dependencies are not installed; exits with npm's status when it fails.
export function ensureInstalled() {
  if (installed()) return;
  process.stderr.write('hookwarden: installing the locked dependencies first (npm ci)…\n');
  // Under `npm run`, npm_execpath is npm's own CLI script: run it with this node (no PATH lookup, works on Windows).
  const npmCli = process.env.npm_execpath;
  const [cmd, args] =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? [process.execPath, [npmCli, 'ci', '--no-audit', '--no-fund']]
      : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund']];
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`hookwarden: npm ci failed (${result.error?.message ?? `exit ${result.status}`})\n`);
    process.exit(result.status ?? 1);
  }
}
