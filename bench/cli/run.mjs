// bench/cli: start-up of the admin CLI as whole processes, against `node -e 0` in the same run: `hookwarden --version`
// (≤ 1.5×) and `hookwarden groups list` against a local API (≤ 2.5×), through the npm bin (node_modules/.bin: the
// launcher, the bundle and its code cache) and the plain tsc output; each target with its ratio and PASS/FAIL.
// Run with `npm run bench:cli` (needs PostgreSQL and Redis; builds the packages first). `BENCH_CLI_RUNS` (default 30).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, dropDatabase, printProcessTable, root, startApi, target, timeProcesses } from '../lib.mjs';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 30);
execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'scripts/bundle-bins.mjs')], { cwd: root, stdio: 'ignore' });

const database = await createDatabase();
const api = await startApi(database);
try {
  for (let i = 0; i < 5; i++) await api.api('POST', '/v1/groups', { name: `bench-${i}` });
  // As in CI: the server and token from the environment, no config file (none of the developer's is read).
  const home = mkdtempSync(path.join(os.tmpdir(), 'hw-bench-cli-'));
  const env = { XDG_CONFIG_HOME: home, HOOKWARDEN_URL: api.base, HOOKWARDEN_TOKEN: api.token, NO_COLOR: '1' };
  const bin = path.join(root, 'node_modules', '.bin', 'hookwarden');
  const dist = path.join(root, 'apps/cli/dist/cli/main.js');
  const listed = (out) => {
    if (!out.includes('bench-4')) throw new Error(`groups list printed no bench group: ${out.slice(0, 200)}`);
  };
  const version = (out) => {
    if (!/^\d+\.\d+\.\d+\n$/.test(out)) throw new Error(`--version printed ${JSON.stringify(out)}`);
  };
  const rows = timeProcesses(
    [
      { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      { name: 'hookwarden --version, npm bin', cmd: bin, args: ['--version'], env, check: version },
      { name: 'hookwarden groups list, npm bin', cmd: bin, args: ['groups', 'list'], env, check: listed },
      { name: 'hookwarden --version, dist/ (tsc output)', cmd: process.execPath, args: [dist, '--version'], env },
      {
        name: 'hookwarden groups list, dist/ (tsc output)',
        cmd: process.execPath,
        args: [dist, 'groups', 'list'],
        env,
      },
    ],
    { runs: RUNS },
  );
  const [base, version_, list] = rows;
  printProcessTable(`admin CLI start (${RUNS} runs each, interleaved; wall ms from fork to exit)`, rows, base);
  target('hookwarden --version, npm bin', version_, base, 1.5);
  target('hookwarden groups list (local API), npm bin', list, base, 2.5);
} finally {
  api.stop();
  await dropDatabase(database);
}
