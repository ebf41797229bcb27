// `npm start`: install the locked dependencies if they are missing, build (packages and web console), apply pending
// migrations, then run the API (console at /console) and the worker; Ctrl-C stops both cleanly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureInstalled } from './ensure-installed.mjs';

ensureInstalled();
const { bin, ensureDatabase, migrateDeploy, root, run } = await import('./lib.mjs');

const databaseUrl = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/hookwarden';
const env = { ...process.env, DATABASE_URL: databaseUrl };

await run(bin('tsc'), ['-b', 'tsconfig.build.json']);
await run(bin('vite'), ['build', '--logLevel', 'warn'], { ...process.env, FORCE_COLOR: '0' }, 'apps/console');
await ensureDatabase(databaseUrl);
await migrateDeploy(env);

const children = ['main.js', 'worker.js'].map((entry) =>
  spawn(process.execPath, ['--enable-source-maps', path.join(root, 'apps/api/dist', entry)], {
    cwd: root,
    env,
    stdio: 'inherit',
  }),
);
let stopping = false;
// Forwards the stop signal to both processes and exits once both are gone.
function stop(signal) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
let exitCode = 0;
await Promise.all(
  children.map(
    (child) =>
      new Promise((resolve) =>
        child.on('exit', (code) => {
          if (!stopping) {
            exitCode = code ?? 1;
            stop('SIGTERM');
          }
          resolve();
        }),
      ),
  ),
);
process.exit(exitCode);
