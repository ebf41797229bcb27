// `npm test`: install the locked dependencies if they are missing, generate the Prisma client, build the packages and
// the web console (tests spawn the real CLIs and drive the console in Chromium), run every test.
// Vitest's global setup migrates a template database; each test file clones its own from it.
import { ensureInstalled } from './ensure-installed.mjs';

ensureInstalled();
const { bin, run } = await import('./lib.mjs');

await run(bin('prisma'), ['generate', '--no-hints']);
await run(bin('tsc'), ['-b', 'tsconfig.build.json']);
await run(bin('vite'), ['build', '--logLevel', 'warn'], { ...process.env, FORCE_COLOR: '0' }, 'apps/console');
await run(bin('vitest'), ['run', ...process.argv.slice(2)]);
