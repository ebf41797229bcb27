// The options and rules `releases create` and `releases promote` share: rollout rings and gates, the release impact
// preview's acknowledgement (--ack-preview / --yes-preview) and the error that says how to give it.
import type { Command } from 'commander';
import type { ApiClient } from '../client/api-client';
import { fetchPreview, isPreviewDigest, previewLines, summarizePreview } from '../client/preview';
import type { ReleasePreviewView } from '../client/types';
import type { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { parseDuration, parseIntIn, parseRate, parseRings } from '../cli/parse';
import { uuid } from './common';

// Checks a release id argument.
export const releaseId = (id: string): string => uuid(id, 'release id');

/** The rollout and gate options of `create --staged` and `promote`. */
export interface RolloutOptions {
  rings?: string;
  interval?: string;
  maxApplyFailureRate?: string;
  maxHookFailureRate?: string;
  minHookRuns?: string;
  minReportingEndpoints?: string;
}

/** The preview acknowledgement options of `create` and `promote`. */
export interface AckOptions {
  ackPreview?: string;
  yesPreview?: boolean;
}

// The rings and interval of --rings / --interval (undefined: the API's defaults).
export function ringOptions(opts: RolloutOptions) {
  return {
    rings: opts.rings ? parseRings(opts.rings, '--rings') : undefined,
    ringIntervalSec: opts.interval ? parseDuration(opts.interval, '--interval') : undefined,
  };
}

// The gate settings of the gate options (undefined: the API's defaults).
export function gateOptions(opts: RolloutOptions) {
  return {
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
  };
}

// Checks --ack-preview / --yes-preview.
export function checkAckOptions(opts: AckOptions): void {
  if (opts.ackPreview !== undefined && !isPreviewDigest(opts.ackPreview))
    throw new CliError(
      `--ack-preview must be a preview digest (sha256:<64 hex>), got ${JSON.stringify(opts.ackPreview)}`,
    );
  if (opts.ackPreview !== undefined && opts.yesPreview)
    throw new CliError('give --ack-preview <digest> or --yes-preview, not both');
}

// The digest to acknowledge: --ack-preview, or (--yes-preview) the preview fetched now, shown on the way.
export async function previewAckOf(
  rt: ReturnType<typeof runtimeOf>,
  client: ApiClient,
  groupId: string,
  versionId: string,
  opts: AckOptions,
): Promise<string | undefined> {
  if (!opts.yesPreview) return opts.ackPreview;
  // Acknowledge what the preview shows now, and say what that is (stderr under -o json).
  const p = await fetchPreview(client, groupId, versionId);
  const text = `Release impact (acknowledged by --yes-preview):\n${previewLines(p, '  ').join('\n')}\n`;
  if (rt.format === 'json') process.stderr.write(text);
  else rt.out(text);
  return p.digest;
}

// Adds the gate options (staged rollouts) to a command.
export function withGateOptions(c: Command): Command {
  return c
    .option('--max-apply-failure-rate <rate>', 'pause above this apply-failure ratio, e.g. 0.05 or 5% (staged)')
    .option('--max-hook-failure-rate <rate>', 'pause above this hook failure/timeout ratio (staged)')
    .option('--min-hook-runs <n>', 'hook runs an endpoint needs before its own failure rate counts (staged)')
    .option(
      '--min-reporting-endpoints <n>',
      'endpoints with --min-hook-runs runs needed before the hook gate can pause (staged)',
    );
}

// Adds the preview acknowledgement options to a command.
export function withAckOptions(c: Command): Command {
  return c
    .option(
      '--ack-preview <digest>',
      'acknowledge the release impact preview with this digest (from `releases preview`), when it requires one',
    )
    .option('--yes-preview', 'fetch the release impact preview and acknowledge what it shows (for automation)');
}

// A word as the shell would need it (quoted when it has anything but safe characters).
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

// The error of a release the API refused for want of an acknowledged preview: the impact, and how to acknowledge.
export async function ackRequiredError(
  client: ApiClient,
  groupId: string,
  groupName: string,
  versionId: string,
  ref: string,
  given: string | undefined,
  apiMessage: string,
  rerun: string,
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
    : `${rerun === 'create' ? 'releasing' : 'promoting'} this version to group "${groupName}" needs an acknowledged release impact preview`;
  return new CliError(
    `${head}:\n${lines.join('\n')}\n` +
      `review it (hookwarden releases preview ${shellWord(ref)} --version-id ${versionId}), then re-run ` +
      `${rerun === 'create' ? '' : `\`hookwarden releases ${rerun}\` `}with --ack-preview ${digest} (or ` +
      '--yes-preview to acknowledge whatever the preview shows at that moment)',
  );
}
