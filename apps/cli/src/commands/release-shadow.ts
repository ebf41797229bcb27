// `hookwarden releases promote` and `releases shadow-report`: turning a shadow release into the enforced policy, and
// what its hooks would have decided against the enforced ones.
import type { Command } from 'commander';
import type { ShadowReportView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { isPreviewAckRequired } from '../client/preview';
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
  withAckOptions,
  withGateOptions,
} from './release-options';

// Registers `promote` and `shadow-report` under the `releases` command.
export function registerShadowReleaseCommands(releases: Command): void {
  examples(
    withAckOptions(
      withGateOptions(
        releases
          .command('promote <id>')
          .description(
            'Promote a shadow release: the same version becomes the enforced policy as a staged release (rings, ' +
              'gates and the impact preview acknowledgement as for `create --staged`); the shadow layer is removed',
          )
          .option('--rings <list>', "the staged release's rings (default: the shadow release's)")
          .option('--interval <duration>', "time between its rings (default: the shadow release's)")
          .option('--watch', 'follow the staged rollout until it completes, pauses or aborts'),
      ),
    ).action(async (id: string, opts: RolloutOptions & AckOptions & { watch?: boolean }, cmd: Command) => {
      const rt = runtimeOf(cmd);
      checkAckOptions(opts);
      const client = await rt.client();
      const shadow = await client.json('GET', '/v1/releases/{id}', { path: { id: releaseId(id) } });
      const previewAck = await previewAckOf(rt, client, shadow.groupId, shadow.policyVersionId, opts);
      const body = { ...ringOptions(opts), ...gateOptions(opts), ...(previewAck ? { previewAck } : {}) };
      let res;
      try {
        res = await client.json('POST', '/v1/releases/{id}/promote', { path: { id: shadow.id }, body });
      } catch (err) {
        if (!isPreviewAckRequired(err)) throw err;
        const g = await client.json('GET', '/v1/groups/{id}', { path: { id: shadow.groupId } });
        throw await ackRequiredError(
          client,
          shadow.groupId,
          g.name,
          shadow.policyVersionId,
          g.name,
          previewAck,
          err.message,
          `promote ${shadow.id}`,
        );
      }
      if (rt.format === 'json' && !opts.watch) return rt.json(res);
      if (rt.format !== 'json')
        rt.out(
          `Promoted shadow release ${res.shadow.id}: staged release ${res.release.id} (revision ` +
            `${res.release.revision}) rolls version ${res.release.policyVersion} out as the enforced policy; the ` +
            'shadow layer is removed.\n',
        );
      if (opts.watch && res.release.status === 'rolling')
        await watchAndExit(rt.format === 'json', client, res.release.id, {}, (v) => rt.json(v));
    }),
    [
      'hookwarden releases promote 0b6c…',
      'hookwarden releases promote 0b6c… --rings 5,25,100 --interval 1h --max-apply-failure-rate 2% --yes-preview',
    ],
  );

  examples(
    releases
      .command('shadow-report <id>')
      .description(
        "What a shadow release's hooks would have decided against the enforced ones, over the events its shadow " +
          'layer ran on: totals, by hook, by endpoint and by tool command, with sample events',
      )
      .option('--json', 'print the report as JSON (same as -o json)')
      .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const report = await (
          await rt.client()
        ).json('GET', '/v1/releases/{id}/shadow-report', { path: { id: releaseId(id) } });
        if (opts.json || rt.format === 'json') return rt.json(report);
        rt.out(renderShadowReport(report));
      }),
    ['hookwarden releases shadow-report 0b6c…', 'hookwarden releases shadow-report 0b6c… --json | jq .totals'],
  );
}

/** The report's counts as table columns (after a row's own columns). */
const COUNT_COLUMNS = [
  { header: 'WOULD DENY', get: (r: ShadowCounts) => r.wouldNewlyDeny },
  { header: 'WOULD STOP DENYING', get: (r: ShadowCounts) => r.wouldStopDenying },
  { header: 'REWRITES', get: (r: ShadowCounts) => r.rewrites },
  { header: 'ERRORS', get: (r: ShadowCounts) => r.errors },
  { header: 'TIMEOUTS', get: (r: ShadowCounts) => r.timeouts },
];
type ShadowCounts = ShadowReportView['totals'];

// The shadow report as text: the totals, then each breakdown and the samples (each table at most 20 rows; -o json
// has every row).
export function renderShadowReport(r: ShadowReportView): string {
  const t = r.totals;
  const out = [
    `Shadow release ${r.releaseId}: ${r.events} event(s), ${r.shadowRuns} shadow run(s)`,
    `  would newly deny:   ${t.wouldNewlyDeny}  (a shadow hook would deny or block where no enforced hook did)`,
    `  would stop denying: ${t.wouldStopDenying}  (an enforced managed hook denied, no shadow hook would)`,
    `  rewrites:           ${t.rewrites}`,
    `  errors:             ${t.errors}`,
    `  timeouts:           ${t.timeouts}`,
  ];
  const section = <T>(title: string, rows: T[], columns: Array<Column<T>>): void => {
    if (rows.length === 0) return;
    out.push('', `${title}:`, renderTable(rows.slice(0, 20), columns).trimEnd());
    if (rows.length > 20) out.push(`… and ${rows.length - 20} more (-o json has every row)`);
  };
  section('By hook (shadow runs)', r.byHook, [{ header: 'HOOK', get: (x) => x.hookKey, max: 70 }, ...COUNT_COLUMNS]);
  section('By endpoint (events)', r.byEndpoint, [
    { header: 'ENDPOINT', get: (x) => x.endpointId, max: 36 },
    ...COUNT_COLUMNS,
  ]);
  section('By tool command (events)', r.byToolCommand, [
    { header: 'TOOL', get: (x) => x.toolName },
    { header: 'COMMAND', get: (x) => x.toolCommand, max: 50 },
    ...COUNT_COLUMNS,
  ]);
  section('Samples (hookwarden hook-runs get <shadow run> --endpoint <endpoint>)', r.samples, [
    { header: 'CATEGORY', get: (x) => x.category },
    { header: 'AT', get: (x) => shortTime(x.recordedAt) },
    { header: 'ENDPOINT', get: (x) => x.endpointId, max: 36 },
    { header: 'COMMAND', get: (x) => x.toolCommand, max: 40 },
    { header: 'SHADOW RUN', get: (x) => x.shadowRunId, max: 36 },
  ]);
  if (r.events === 0) out.push('', 'No event yet: the shadow layer has not run (or its runs are not uploaded yet).');
  return out.join('\n') + '\n';
}
