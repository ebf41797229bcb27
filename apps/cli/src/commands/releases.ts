// `hookwarden releases …`: releases of a policy version to a group (list, get, create — immediate, staged or shadow —
// with the impact preview, preview, pause/resume/advance/abort, promote and the shadow report of a shadow release).
import type { Command } from 'commander';
import { SCHEMA_ENUMS } from '@hookwarden/admin-client';
import { resolveGroup, resolvePolicy } from '../client/resolve';
import type { ApiClient } from '../client/api-client';
import { fetchPreview, isPreviewAckRequired, previewLines } from '../client/preview';
import type { ReleasePreviewView, ReleaseView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIntIn } from '../cli/parse';
import { type Column, renderTable } from '../output/table';
import { watchAndExit } from '../rollout/watch';
import { shortTime } from './common';
import {
  type AckOptions,
  ackRequiredError,
  checkAckOptions,
  gateOptions,
  previewAckOf,
  releaseId,
  ringOptions,
  type RolloutOptions,
  shellWord,
  withAckOptions,
  withGateOptions,
} from './release-options';
import { registerShadowReleaseCommands } from './release-shadow';

const RELEASE_COLUMNS: Array<Column<ReleaseView>> = [
  { header: 'ID', get: (r) => r.id, max: 36 },
  { header: 'REV', get: (r) => r.revision },
  { header: 'POLICY', get: (r) => r.policyId, max: 36 },
  { header: 'VERSION', get: (r) => r.policyVersion },
  { header: 'STRATEGY', get: (r) => r.strategy },
  { header: 'STATUS', get: (r) => r.status },
  { header: 'RING', get: (r) => (r.strategy === 'immediate' ? '-' : `${r.currentRing + 1}/${r.rings.length}`) },
  { header: 'CREATED', get: (r) => shortTime(r.createdAt) },
];

/** The API route of each release action. */
const RELEASE_ACTIONS = {
  pause: '/v1/releases/{id}/pause',
  resume: '/v1/releases/{id}/resume',
  advance: '/v1/releases/{id}/advance',
  abort: '/v1/releases/{id}/abort',
} as const;

interface CreateOptions extends RolloutOptions, AckOptions {
  policy?: string;
  version?: string;
  versionId?: string;
  staged?: boolean;
  strategy?: string;
  shadowBudgetMs?: string;
  watch?: boolean;
}

const STRATEGIES = SCHEMA_ENUMS['CreateReleaseDto.strategy'];
type Strategy = (typeof STRATEGIES)[number];

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
  return (await client.json('GET', '/v1/policies/{id}/versions/{n}', { path: { id: p.id, n } })).id;
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

// Registers the `hookwarden releases …` commands.
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
        rt.list(
          await client.json('GET', '/v1/groups/{groupId}/releases', { path: { groupId: g.id } }),
          RELEASE_COLUMNS,
        );
      }),
    ['hookwarden releases list engineering'],
  );

  examples(
    releases
      .command('get <id>')
      .description('Show a release')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await (await rt.client()).json('GET', '/v1/releases/{id}', { path: { id: releaseId(id) } }));
      }),
    ['hookwarden releases get 0b6c…'],
  );

  const create = releases
    .command('create <group>')
    .description(
      'Release a policy version to a group: immediately, staged in rings with failure-rate gates, or as a shadow ' +
        'release (beside the enforced policy, in rings, its hooks only observed until `promote` or `abort`)',
    )
    .option('--policy <policy>', 'the policy (id or name), with --version')
    .option('--version <n>', 'the version number (default: the latest)')
    .option('--version-id <uuid>', 'the policy version id (instead of --policy/--version)')
    .option('--strategy <strategy>', 'immediate, staged or shadow (default: immediate)')
    .option('--staged', 'roll out in rings (same as --strategy staged)')
    .option('--rings <list>', 'cumulative ring percentages ending at 100, e.g. 5,25,100 (staged, shadow)')
    .option('--interval <duration>', 'time between rings, e.g. 30m (staged, shadow)')
    .option(
      '--shadow-budget-ms <ms>',
      'how long the shadow hooks may run on after the enforced hooks of an event (shadow; default 100)',
    )
    .option('--watch', 'follow the rollout until it completes, pauses or aborts');
  withAckOptions(withGateOptions(create)).action(async (ref: string, opts: CreateOptions, cmd: Command) => {
    const rt = runtimeOf(cmd);
    const strategy = strategyOf(opts);
    checkAckOptions(opts);
    if (strategy === 'immediate' && (opts.rings !== undefined || opts.interval !== undefined))
      throw new CliError('--rings and --interval need --strategy staged or shadow');
    const gates = gateOptions(opts);
    if (strategy !== 'staged' && Object.values(gates).some((x) => x !== undefined))
      throw new CliError(
        strategy === 'shadow'
          ? 'a shadow release has no gates: give them to `releases promote`'
          : 'the gates need --strategy staged',
      );
    if (strategy === 'shadow' && (opts.ackPreview !== undefined || opts.yesPreview))
      throw new CliError('a shadow release enforces nothing: acknowledge the preview at `releases promote`');
    if (opts.shadowBudgetMs !== undefined && strategy !== 'shadow')
      throw new CliError('--shadow-budget-ms needs --strategy shadow');
    if (opts.shadowBudgetMs !== undefined && !/^\d{1,7}$/.test(opts.shadowBudgetMs))
      throw new CliError(`--shadow-budget-ms: ${JSON.stringify(opts.shadowBudgetMs)} is not a whole number of ms`);
    const budget = opts.shadowBudgetMs !== undefined ? { shadowBudgetMs: Number(opts.shadowBudgetMs) } : {};
    const client = await rt.client();
    const g = await resolveGroup(client, ref);
    const versionId = await resolveVersionId(client, opts);
    const body =
      strategy === 'immediate'
        ? { policyVersionId: versionId, strategy }
        : {
            policyVersionId: versionId,
            strategy,
            ...ringOptions(opts),
            ...(strategy === 'staged' ? gates : budget),
          };
    const previewAck = await previewAckOf(rt, client, g.id, versionId, opts);
    let r: ReleaseView;
    try {
      r = await client.json('POST', '/v1/groups/{groupId}/releases', {
        path: { groupId: g.id },
        body: previewAck ? { ...body, previewAck } : body,
      });
    } catch (err) {
      if (!isPreviewAckRequired(err)) throw err;
      throw await ackRequiredError(client, g.id, g.name, versionId, ref, previewAck, err.message, 'create');
    }
    if (strategy === 'shadow' && rt.format !== 'json')
      rt.out(
        `Shadow release ${r.id} (revision ${r.revision}) started: its hooks run beside the enforced policy and decide ` +
          `nothing. Watch what they would do: hookwarden releases shadow-report ${r.id}\n`,
      );
    if (!opts.watch || r.status !== 'rolling') return rt.record(r);
    if (rt.format !== 'json') rt.out(`Release ${r.id} (revision ${r.revision}) started.\n`);
    await watchAndExit(rt.format === 'json', client, r.id, {}, (v) => rt.json(v));
  });
  examples(create, [
    'hookwarden releases create engineering --policy baseline',
    'hookwarden releases create engineering --policy baseline --version 4 --staged --rings 5,25,100 --interval 1h --max-apply-failure-rate 2% --watch',
    'hookwarden releases create engineering --policy baseline --strategy shadow --rings 10,100 --interval 1d',
    'hookwarden releases create engineering --policy baseline --strategy shadow --shadow-budget-ms 500',
    'hookwarden releases create engineering --policy baseline --ack-preview sha256:…   # after `releases preview`',
  ]);

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

  const action = (name: keyof typeof RELEASE_ACTIONS, description: string, example: string) => {
    const c = releases
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string, opts: { reason?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const body = name === 'pause' && opts.reason ? { reason: opts.reason } : undefined;
        const res = await (
          await rt.client()
        ).json('POST', RELEASE_ACTIONS[name], { path: { id: releaseId(id) }, body });
        if (rt.format === 'json') return rt.json(res);
        if ('rollback' in res) {
          rt.out(
            res.release.strategy === 'shadow'
              ? `Aborted shadow release ${res.release.id}: its shadow layer is removed from every endpoint.\n`
              : `Aborted release ${res.release.id}.${res.rollback ? ` Rollback release ${res.rollback.id} re-issues the previous bundle.` : ''}\n`,
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
  action(
    'abort',
    'Abort a rollout and re-issue the previous bundle; a shadow release: remove its shadow layer everywhere',
    'hookwarden releases abort 0b6c…',
  );

  registerShadowReleaseCommands(releases);
}

// The strategy --strategy / --staged name.
function strategyOf(opts: CreateOptions): Strategy {
  const given = opts.strategy ?? (opts.staged ? 'staged' : 'immediate');
  if (!(STRATEGIES as readonly string[]).includes(given))
    throw new CliError(`--strategy must be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify(given)}`);
  if (opts.staged && given !== 'staged') throw new CliError('--staged contradicts --strategy ' + given);
  return given as Strategy;
}
