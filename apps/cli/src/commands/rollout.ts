// `hookwarden rollout …`: a staged rollout's progress (show, watch).
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { parseDuration } from '../cli/parse';
import { uuid } from './common';
import { renderRollout, watchAndExit } from '../rollout/watch';

// Checks a release id argument.
const releaseId = (id: string): string => uuid(id, 'release id');

// Registers the `hookwarden rollout …` commands.
export function registerRolloutCommands(program: Command): void {
  const rollout = program.command('rollout').description('Progress of a staged rollout');
  examples(rollout, ['hookwarden rollout show 0b6c…', 'hookwarden rollout watch 0b6c…']);

  examples(
    rollout
      .command('show <id>')
      .description('Per-ring progress and gate rates of a release')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const v = await (await rt.client()).json('GET', '/v1/releases/{id}/rollout', { path: { id: releaseId(id) } });
        if (rt.format === 'json') rt.json(v);
        else rt.out(renderRollout(v));
      }),
    ['hookwarden rollout show 0b6c… -o json'],
  );

  examples(
    rollout
      .command('watch <id>')
      .description(
        'Follow a rollout live until it completes (exit 0), pauses (exit 3) or is aborted/superseded (exit 1)',
      )
      .option('--interval <duration>', 'poll interval', '2s')
      .option('--timeout <duration>', 'give up after this long')
      .action(async (id: string, opts: { interval: string; timeout?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        await watchAndExit(
          rt.format === 'json',
          await rt.client(),
          releaseId(id),
          {
            intervalMs: parseDuration(opts.interval, '--interval') * 1000,
            timeoutMs: opts.timeout ? parseDuration(opts.timeout, '--timeout') * 1000 : undefined,
          },
          (v) => rt.json(v),
        );
      }),
    ['hookwarden rollout watch 0b6c…', 'hookwarden rollout watch 0b6c… --interval 5s --timeout 2h'],
  );
}
