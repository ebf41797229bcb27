// `npm test`: install the locked dependencies if they are missing, generate the Prisma client, build the packages, the
// bins' bundles and the web console (tests spawn the real CLIs and drive the console in Chromium), run every test.
// Vitest's global setup migrates a template database; each test file clones its own from it.
//
// With no arguments the suite runs in two lanes side by side (vitest.config.mts `projects`): `heavy` (HA topologies,
// Windows under Wine, the console in Chromium, the CLI suites) and `main` (everything else), each one file at a time, so two heavy
// files never overlap and the two cores both work. Each lane is its own vitest process with its own run prefix (its
// teardown removes only its own databases and Redis keys; a given HW_TEST_RUN_PREFIX gets `_<lane>` appended).
// Arguments are passed to one vitest process as they are.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ensureInstalled } from './ensure-installed.mjs';

ensureInstalled();
const { bin, root, run } = await import('./lib.mjs');

await run(bin('prisma'), ['generate', '--no-hints']);
await run(bin('tsc'), ['-b', 'tsconfig.build.json']);
await run(process.execPath, ['scripts/bundle-bins.mjs']);
await run(bin('vite'), ['build', '--logLevel', 'warn'], { ...process.env, FORCE_COLOR: '0' }, 'apps/console');

const args = process.argv.slice(2);
if (args.length > 0) {
  await run(bin('vitest'), ['run', ...args]);
} else {
  const lanes = ['heavy', 'main'];
  const started = Date.now();
  const results = await Promise.all(lanes.map((lane) => runLane(lane)));
  const secs = Math.round((Date.now() - started) / 1000);
  for (const r of results) console.log(`[${r.lane}] ${r.summary.join(' | ') || 'no summary'} (exit ${r.code})`);
  const failed = results.filter((r) => r.code !== 0).map((r) => r.lane);
  console.log(
    failed.length === 0 ? `every lane passed in ${secs} s` : `lane(s) ${failed.join(', ')} failed (${secs} s)`,
  );
  process.exitCode = failed.length === 0 ? 0 : 1;
}

// Runs one lane's vitest, printing its lines prefixed with the lane's name; resolves with its exit code and the
// summary lines vitest printed last.
function runLane(lane) {
  return new Promise((resolve) => {
    const child = spawn(bin('vitest'), ['run', '--project', lane], {
      cwd: root,
      // A given run prefix gets the lane's name appended; otherwise each lane makes its own.
      env: {
        ...process.env,
        HW_TEST_RUN_PREFIX: process.env.HW_TEST_RUN_PREFIX ? `${process.env.HW_TEST_RUN_PREFIX}_${lane}` : '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const summary = [];
    const forward = (stream, out) =>
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        out.write(`[${lane}] ${line}\n`);
        const plain = line.replace(/\x1b\[[0-9;]*m/g, '').trim();
        if (/^(Test Files|Tests|Duration)\s/.test(plain)) summary.push(plain.replace(/\s+/g, ' '));
      });
    forward(child.stdout, process.stdout);
    forward(child.stderr, process.stderr);
    child.on('error', (err) => resolve({ lane, code: 1, summary: [`could not start vitest: ${err.message}`] }));
    child.on('exit', (code, signal) => resolve({ lane, code: code ?? (signal ? 1 : 0), summary }));
  });
}
