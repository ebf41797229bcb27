// `hookwarden releases …` (immediate or staged; pause/resume/advance/abort) and `hookwarden rollout show|watch`.
import type { Command } from 'commander';
import { resolveGroup, resolvePolicy } from '../client/resolve';
import type { ApiClient } from '../client/api-client';
import { fetchPreview, isPreviewAckRequired, isPreviewDigest, previewLines, summarizePreview } from '../client/preview';
import type { ReleasePreviewView, ReleaseView, RolloutView, VersionView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseDuration, parseIntIn, parseRate, parseRings } from '../cli/parse';
import { type Column, renderTable } from '../output/table';
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
  minReportingEndpoints?: string;
  watch?: boolean;
  ackPreview?: string;
  yesPreview?: boolean;
}

interface VersionRef {
  policy?: string;
  version?: string;
  versionId?: string;
}

// The policy version id named by --version-id, or by --policy with an optional --version (default: the latest).
async function resolveVersionId(client: ApiClient, opts: VersionRef): Promise<string> {
  if (opts.versionId) {
    if (!isUuid(opts.versionId))
      throw new CliError(`--version-id must be a UUID, got ${JSON.stringify(opts.versionId)}`);
    return opts.versionId;
  }
  if (!opts.policy) throw new CliError('give --policy (with an optional --version) or --version-id');
  const p = await resolvePolicy(client, opts.policy);
  const n = opts.version ? parseIntIn(opts.version, '--version', 1, 2_000_000_000) : p.latestVersion;
  if (n === 0) throw new CliError(`policy "${p.name}" has no versions yet`);
  return (await client.json<VersionView>('GET', `/v1/policies/${p.id}/versions/${n}`)).id;
}

// The preview as text: the summary, then the endpoints it changes (at most 50 rows; -o json has all).
function renderPreview(p: ReleasePreviewView, groupName: string): string {
  const out = [
    `Release impact of policy version ${p.policyVersionId} in group "${groupName}":`,
    ...previewLines(p, '  '),
  ];
  const changed = (p.perEndpoint ?? []).filter((e) => e.hooksTurnedOff || e.unknown || e.suppressedKeys.length > 0);
  if (changed.length) {
    out.push('', 'Endpoints affected:');
    out.push(
      renderTable(changed.slice(0, 50), [
        { header: 'HOSTNAME', get: (e) => e.hostname, max: 40 },
        { header: 'ENDPOINT', get: (e) => e.endpointId, max: 36 },
        // Where the impact is unknown (no current inventory) the counts are `?`, not 0.
        { header: 'USER', get: (e) => (p.impactUnknown && e.unknown ? '?' : e.suppressed.user) },
        { header: 'PROJECT', get: (e) => (p.impactUnknown && e.unknown ? '?' : e.suppressed.project) },
        { header: 'PLUGIN', get: (e) => (p.impactUnknown && e.unknown ? '?' : e.suppressed.plugin) },
        { header: 'SESSION', get: (e) => (p.impactUnknown && e.unknown ? '?' : e.suppressed.session) },
        { header: 'HOOKS OFF', get: (e) => (p.impactUnknown && e.unknown ? '?' : e.hooksTurnedOff) },
        { header: 'UNKNOWN', get: (e) => e.unknown },
        { header: 'INVENTORY', get: (e) => shortTime(e.inventoryAt) },
      ]).trimEnd(),
    );
    if (changed.length > 50) out.push(`… and ${changed.length - 50} more (-o json lists every endpoint)`);
  }
  return out.join('\n') + '\n';
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
      .option('--min-hook-runs <n>', 'hook runs an endpoint needs before its own failure rate counts (staged)')
      .option(
        '--min-reporting-endpoints <n>',
        'endpoints with --min-hook-runs runs needed before the hook gate can pause (staged)',
      )
      .option('--watch', 'follow the rollout until it completes, pauses or aborts')
      .option(
        '--ack-preview <digest>',
        'acknowledge the release impact preview with this digest (from `releases preview`), when it requires one',
      )
      .option('--yes-preview', 'fetch the release impact preview and acknowledge what it shows (for automation)')
      .action(async (ref: string, opts: CreateOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        if (opts.ackPreview !== undefined && !isPreviewDigest(opts.ackPreview))
          throw new CliError(
            `--ack-preview must be a preview digest (sha256:<64 hex>), got ${JSON.stringify(opts.ackPreview)}`,
          );
        if (opts.ackPreview !== undefined && opts.yesPreview)
          throw new CliError('give --ack-preview <digest> or --yes-preview, not both');
        const versionId = await resolveVersionId(client, opts);
        const stagedOnly = [
          opts.rings,
          opts.interval,
          opts.maxApplyFailureRate,
          opts.maxHookFailureRate,
          opts.minHookRuns,
          opts.minReportingEndpoints,
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
              minReportingEndpoints: opts.minReportingEndpoints
                ? parseIntIn(opts.minReportingEndpoints, '--min-reporting-endpoints', 1, 1_000_000)
                : undefined,
            }
          : { policyVersionId: versionId, strategy: 'immediate' };
        let previewAck = opts.ackPreview;
        if (opts.yesPreview) {
          // Acknowledge what the preview shows now, and say what that is (stderr under -o json).
          const p = await fetchPreview(client, g.id, versionId);
          previewAck = p.digest;
          const text = `Release impact (acknowledged by --yes-preview):\n${previewLines(p, '  ').join('\n')}\n`;
          if (rt.format === 'json') process.stderr.write(text);
          else rt.out(text);
        }
        let r: ReleaseView;
        try {
          r = await client.json<ReleaseView>('POST', `/v1/groups/${g.id}/releases`, {
            body: previewAck ? { ...body, previewAck } : body,
          });
        } catch (err) {
          if (!isPreviewAckRequired(err)) throw err;
          throw await ackRequiredError(client, g.id, g.name, versionId, ref, previewAck, err.message);
        }
        if (!opts.watch || r.status !== 'rolling') return rt.record(r);
        if (rt.format !== 'json') rt.out(`Release ${r.id} (revision ${r.revision}) started.\n`);
        await watchAndExit(rt.format === 'json', client, r.id, {}, (v) => rt.json(v));
      }),
    [
      'hookwarden releases create engineering --policy baseline',
      'hookwarden releases create engineering --policy baseline --version 4 --staged --rings 5,25,100 --interval 1h --max-apply-failure-rate 2% --watch',
      'hookwarden releases create engineering --policy baseline --ack-preview sha256:…   # after `releases preview`',
    ],
  );

  examples(
    releases
      .command('preview <group>')
      .description(
        'The impact of releasing a version to a group, from the latest inventories: hooks suppressed per layer, ' +
          'endpoints turning hooks off, missing managed scripts, endpoints of unknown impact, and the digest to ' +
          'acknowledge when it requires one',
      )
      .option('--policy <policy>', 'the policy (id or name), with --version')
      .option('--version <n>', 'the version number (default: the latest)')
      .option('--version-id <uuid>', 'the policy version id (instead of --policy/--version)')
      .action(async (ref: string, opts: VersionRef, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        const p = await fetchPreview(client, g.id, await resolveVersionId(client, opts));
        if (rt.format === 'json') return rt.json(p);
        rt.out(renderPreview(p, g.name));
        if (p.requiresAck)
          rt.out(`To release it: hookwarden releases create ${shellWord(ref)} … --ack-preview ${p.digest}\n`);
      }),
    [
      'hookwarden releases preview engineering --policy baseline',
      'hookwarden releases preview engineering --policy baseline --version 4 -o json | jq .suppressed',
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

// A word as the shell would need it (quoted when it has anything but safe characters).
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

// The error of a release the API refused for want of an acknowledged preview: the impact, and how to acknowledge.
async function ackRequiredError(
  client: ApiClient,
  groupId: string,
  groupName: string,
  versionId: string,
  ref: string,
  given: string | undefined,
  apiMessage: string,
): Promise<CliError> {
  let p: ReleasePreviewView | undefined;
  try {
    p = await fetchPreview(client, groupId, versionId);
  } catch {
    // the API's message names the digest already
  }
  const lines = p ? previewLines(summarizePreview(p), '  ') : [`  ${apiMessage}`];
  const digest = p?.digest ?? '<digest>';
  const head = given
    ? `the release impact changed since preview ${given}: review the new impact in group "${groupName}"`
    : `releasing this version to group "${groupName}" needs an acknowledged release impact preview`;
  return new CliError(
    `${head}:\n${lines.join('\n')}\n` +
      `review it (hookwarden releases preview ${shellWord(ref)} --version-id ${versionId}), then re-run with ` +
      `--ack-preview ${digest} (or --yes-preview to acknowledge whatever the preview shows at that moment)`,
  );
}
