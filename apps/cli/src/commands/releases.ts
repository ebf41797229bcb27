// `hookwarden releases …` (immediate or staged; pause/resume/advance/abort) and `hookwarden rollout show|watch`.
import type { Command } from 'commander';
import { resolveGroup, resolvePolicy } from '../client/resolve';
import type { ReleaseView, RolloutView, VersionView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseDuration, parseIntIn, parseRate, parseRings } from '../cli/parse';
import type { Column } from '../output/table';
import { renderRollout, watchExitCode, watchRollout } from '../rollout/watch';
import { shortTime } from './common';

const RELEASE_COLUMNS: Array<Column<ReleaseView>> = [
  { header: 'ID', get: (r) => r.id, max: 36 },
  { header: 'REV', get: (r) => r.revision },
  { header: 'POLICY', get: (r) => r.policyId, max: 36 },
  { header: 'VERSION', get: (r) => r.policyVersion },
  { header: 'STRATEGY', get: (r) => r.strategy },
  { header: 'STATUS', get: (r) => r.status },
  { header: 'RING', get: (r) => (r.strategy === 'staged' ? `${r.currentRing + 1}/${r.rings.length}` : '-') },
  { header: 'CREATED', get: (r) => shortTime(r.createdAt) },
];

// Checks a release id argument.
function releaseId(id: string): string {
  if (!isUuid(id)) throw new CliError(`release id must be a UUID, got ${JSON.stringify(id)}`);
  return id;
}

interface CreateOptions {
  policy?: string;
  version?: string;
  versionId?: string;
  staged?: boolean;
  rings?: string;
  interval?: string;
  maxApplyFailureRate?: string;
  maxHookFailureRate?: string;
  minHookRuns?: string;
  watch?: boolean;
}

// Registers `releases` and `rollout`.
export function registerReleaseCommands(program: Command): void {
  const releases = program
    .command('releases')
    .alias('release')
    .description("A group's releases and their staged rollouts");
  examples(releases, [
    'hookwarden releases create engineering --policy baseline --version 3 --staged --rings 5,25,100 --interval 30m',
    'hookwarden releases pause 0b6c…',
  ]);

  examples(
    releases
      .command('list <group>')
      .description("List a group's releases (newest revision first)")
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.list(await client.json<{ items: ReleaseView[] }>('GET', `/v1/groups/${g.id}/releases`), RELEASE_COLUMNS);
      }),
    ['hookwarden releases list engineering'],
  );

  examples(
    releases
      .command('get <id>')
      .description('Show a release')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await (await rt.client()).json<ReleaseView>('GET', `/v1/releases/${releaseId(id)}`));
      }),
    ['hookwarden releases get 0b6c…'],
  );

  examples(
    releases
      .command('create <group>')
      .description('Release a policy version to a group: immediately, or staged in rings with failure-rate gates')
      .option('--policy <policy>', 'the policy (id or name), with --version')
      .option('--version <n>', 'the version number (default: the latest)')
      .option('--version-id <uuid>', 'the policy version id (instead of --policy/--version)')
      .option('--staged', 'roll out in rings (default: immediate)')
      .option('--rings <list>', 'cumulative ring percentages ending at 100, e.g. 5,25,100 (staged)')
      .option('--interval <duration>', 'time between rings, e.g. 30m (staged)')
      .option('--max-apply-failure-rate <rate>', 'pause above this apply-failure ratio, e.g. 0.05 or 5% (staged)')
      .option('--max-hook-failure-rate <rate>', 'pause above this hook failure/timeout ratio (staged)')
      .option('--min-hook-runs <n>', 'hook runs needed before the hook gate applies (staged)')
      .option('--watch', 'follow the rollout until it completes, pauses or aborts')
      .action(async (ref: string, opts: CreateOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        let versionId = opts.versionId;
        if (!versionId) {
          if (!opts.policy) throw new CliError('give --policy (with an optional --version) or --version-id');
          const p = await resolvePolicy(client, opts.policy);
          const n = opts.version ? parseIntIn(opts.version, '--version', 1, 2_000_000_000) : p.latestVersion;
          if (n === 0) throw new CliError(`policy "${p.name}" has no versions yet`);
          versionId = (await client.json<VersionView>('GET', `/v1/policies/${p.id}/versions/${n}`)).id;
        }
        const stagedOnly = [
          opts.rings,
          opts.interval,
          opts.maxApplyFailureRate,
          opts.maxHookFailureRate,
          opts.minHookRuns,
        ];
        if (!opts.staged && stagedOnly.some((x) => x !== undefined)) {
          throw new CliError('--rings, --interval and the gates need --staged');
        }
        const body = opts.staged
          ? {
              policyVersionId: versionId,
              strategy: 'staged',
              rings: opts.rings ? parseRings(opts.rings, '--rings') : undefined,
              ringIntervalSec: opts.interval ? parseDuration(opts.interval, '--interval') : undefined,
              maxApplyFailureRate: opts.maxApplyFailureRate
                ? parseRate(opts.maxApplyFailureRate, '--max-apply-failure-rate')
                : undefined,
              maxHookFailureRate: opts.maxHookFailureRate
                ? parseRate(opts.maxHookFailureRate, '--max-hook-failure-rate')
                : undefined,
              minHookRuns: opts.minHookRuns ? parseIntIn(opts.minHookRuns, '--min-hook-runs', 1, 1_000_000) : undefined,
            }
          : { policyVersionId: versionId, strategy: 'immediate' };
        const r = await client.json<ReleaseView>('POST', `/v1/groups/${g.id}/releases`, { body });
        if (!opts.watch || r.status !== 'rolling') return rt.record(r);
        if (rt.format !== 'json') rt.out(`Release ${r.id} (revision ${r.revision}) started.\n`);
        await watchAndExit(rt.format === 'json', client, r.id, {}, (v) => rt.json(v));
      }),
    [
      'hookwarden releases create engineering --policy baseline',
      'hookwarden releases create engineering --policy baseline --version 4 --staged --rings 5,25,100 --interval 1h --max-apply-failure-rate 2% --watch',
    ],
  );

  const action = (name: 'pause' | 'resume' | 'advance' | 'abort', description: string, example: string) => {
    const c = releases
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string, opts: { reason?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const body = name === 'pause' && opts.reason ? { reason: opts.reason } : undefined;
        const res = await (
          await rt.client()
        ).json<ReleaseView | { release: ReleaseView; rollback: ReleaseView | null }>(
          'POST',
          `/v1/releases/${releaseId(id)}/${name}`,
          { body },
        );
        if (rt.format === 'json') return rt.json(res);
        if ('rollback' in res) {
          rt.out(
            `Aborted release ${res.release.id}.${res.rollback ? ` Rollback release ${res.rollback.id} re-issues the previous bundle.` : ''}\n`,
          );
        } else rt.record(res);
      });
    if (name === 'pause') c.option('--reason <text>', 'why (shown in the release)');
    examples(c, [example]);
  };
  action(
    'pause',
    'Pause a staged rollout (endpoints keep what they have)',
    'hookwarden releases pause 0b6c… --reason "investigating failures"',
  );
  action('resume', 'Resume a paused rollout', 'hookwarden releases resume 0b6c…');
  action('advance', 'Move a staged rollout to its next ring now', 'hookwarden releases advance 0b6c…');
  action('abort', 'Abort a rollout and re-issue the previous bundle', 'hookwarden releases abort 0b6c…');

  const rollout = program.command('rollout').description('Progress of a staged rollout');
  examples(rollout, ['hookwarden rollout show 0b6c…', 'hookwarden rollout watch 0b6c…']);

  examples(
    rollout
      .command('show <id>')
      .description('Per-ring progress and gate rates of a release')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const v = await (await rt.client()).json<RolloutView>('GET', `/v1/releases/${releaseId(id)}/rollout`);
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

// Watches a rollout (progress on stdout, or stderr when the output is JSON) and sets the exit code.
async function watchAndExit(
  json: boolean,
  client: Awaited<ReturnType<ReturnType<typeof runtimeOf>['client']>>,
  id: string,
  o: { intervalMs?: number; timeoutMs?: number },
  printJson: (v: unknown) => void,
): Promise<void> {
  const stream = json ? process.stderr : process.stdout;
  const ac = new AbortController();
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const { end, last } = await watchRollout(client, id, {
      ...o,
      write: (t) => stream.write(t),
      tty: Boolean(stream.isTTY),
      signal: ac.signal,
    });
    if (json) printJson({ end, rollout: last });
    else process.stdout.write(`Rollout ${end}.\n`);
    process.exitCode = watchExitCode(end);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
