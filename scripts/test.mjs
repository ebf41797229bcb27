// `npm test`: generate the Prisma client, build the packages (tests spawn the real CLIs), run every test.
// Vitest's global setup migrates a template database; each test file clones its own from it.
import { bin, run } from './lib.mjs';

await run(bin('prisma'), ['generate', '--no-hints']);
await run(bin('tsc'), ['-b', 'tsconfig.build.json']);
await run(bin('vitest'), ['run', ...process.argv.slice(2)]);
