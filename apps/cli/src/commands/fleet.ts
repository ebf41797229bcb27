// `hookwarden fleet endpoints`: every endpoint of the fleet, with every filter and sort of GET /v1/fleet/endpoints
// (the console's Endpoints view): fleet state, group, platform, agent version, admission, applied revision/version,
// membership, open findings, last seen.
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';
import { CLI_LISTS, filterOptions, filterQuery } from './filters';

// Registers the `hookwarden fleet …` commands.
export function registerFleetCommands(program: Command): void {
  const fleet = program
    .command('fleet')
    .description('The whole fleet: every endpoint, sorted and filtered server-side');
  examples(fleet, ['hookwarden fleet endpoints --state stale,failed --sort lastSeenAt']);

  const table = CLI_LISTS['/v1/fleet/endpoints'].filters;
  examples(
    filterOptions(
      pageOptions(fleet.command('endpoints').description('List endpoints across every group (fleet state first)')),
      table,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, table, opts);
      const page = await fetchPage(await rt.client(), '/v1/fleet/endpoints', { query }, opts);
      rt.list(page, [
        { header: 'ID', get: (e) => e.id, max: 36 },
        { header: 'HOSTNAME', get: (e) => e.hostname, max: 40 },
        { header: 'GROUP', get: (e) => e.groupName, max: 30 },
        { header: 'STATE', get: (e) => e.state },
        { header: 'PLATFORM', get: (e) => e.platform },
        { header: 'AGENT', get: (e) => e.agentVersion },
        {
          header: 'APPLIED',
          get: (e) =>
            e.appliedRevision === null
              ? '-'
              : `r${e.appliedRevision}${e.appliedPolicyVersion === null ? '' : ` (v${e.appliedPolicyVersion})`}`,
        },
        { header: 'FINDINGS', get: (e) => String(e.openFindings) },
        { header: 'LAST SEEN', get: (e) => shortTime(e.lastSeenAt) },
      ]);
    }),
    [
      'hookwarden fleet endpoints --state "never checked in,stale" --group engineering',
      'hookwarden fleet endpoints --has-findings --sort openFindings --order desc -o json',
      'hookwarden fleet endpoints --applied-version none --in-fleet --all',
    ],
  );
}
