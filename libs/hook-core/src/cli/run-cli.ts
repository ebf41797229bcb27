// runCli: a plain `dispatch <event>` line through the fast path (./dispatch-fast), anything else through the
// commander program (./program), loaded only then.
import type { Discovery } from '../types';
import { processIo, type CliIo } from './common';
import { dispatchFast } from './dispatch-fast';

/** The commander program, loaded on first use. */
function program(): typeof import('./program') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./program') as typeof import('./program');
}

/** Run the CLI with arguments (without node and script); resolves with the exit code (never rejects, no stacks). */
export function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  return dispatchFast(argv, io) ?? program().runCli(argv, io);
}

/** Human listing of a discovery (see ./program). */
export function renderList(d: Discovery, platform: NodeJS.Platform = process.platform): string {
  return program().renderList(d, platform);
}

/** The startup-snapshot warm-up (see ./warm-up), loaded on first use. */
export function warmUpCli(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./warm-up') as typeof import('./warm-up')).warmUpCli();
}
