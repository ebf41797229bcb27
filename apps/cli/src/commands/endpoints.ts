// `hookwarden endpoints …`: enrolled endpoints (list with every filter, get with the last status, revoke).
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { fetchPage, type PageOptions, pageOptions, shortTime, uuid } from './common';
import { admissionColumns, registerAdmissionCommands } from './endpoint-admission';
import { CLI_LISTS, filterOptions, filterQuery } from './filters';

// Registers the `hookwarden endpoints …` commands.
export function registerEndpointCommands(program: Command): void {
  const endpoints = program
    .command('endpoints')
    .alias('endpoint')
    .description('Enrolled endpoints (machines running the agent)');
  examples(endpoints, [
    'hookwarden endpoints list --group engineering --state failed',
    'hookwarden endpoints list --admission pending',
    'hookwarden endpoints approve 5f1e…',
    'hookwarden endpoints revoke 5f1e…',
  ]);

  examples(
    filterOptions(
      pageOptions(endpoints.command('list').description('List endpoints, filtered'), 500),
      CLI_LISTS['/v1/endpoints'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/endpoints'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/endpoints', { query }, opts, 500);
      rt.list(page, [
        { header: 'ID', get: (e) => e.id, max: 36 },
        { header: 'HOSTNAME', get: (e) => e.hostname, max: 40 },
        { header: 'GROUP', get: (e) => e.groupName },
        { header: 'PLATFORM', get: (e) => e.platform },
        { header: 'STATE', get: (e) => e.state },
        { header: 'REVISION', get: (e) => `${e.appliedRevision ?? '-'}/${e.targetRevision ?? '-'}` },
        { header: 'AGENT', get: (e) => e.agentVersion },
        { header: 'LAST SEEN', get: (e) => shortTime(e.lastSeenAt) },
        ...admissionColumns(),
      ]);
    }),
    [
      'hookwarden endpoints list --state drifted',
      'hookwarden endpoints list --admission pending',
      'hookwarden endpoints list --group engineering --all -o json',
    ],
  );

  examples(
    endpoints
      .command('get <id>')
      .alias('show')
      .description('Show an endpoint with its last status report')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (await rt.client()).json('GET', '/v1/endpoints/{id}', { path: { id: uuid(id, 'endpoint id') } }),
        );
      }),
    ['hookwarden endpoints get 5f1e…'],
  );

  examples(
    endpoints
      .command('revoke <id>')
      .description('Revoke an endpoint: its agent gets 401 from now on (final, unless re-admitted)')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (
            await rt.client()
          ).json('POST', '/v1/endpoints/{id}/revoke', { path: { id: uuid(id, 'endpoint id') } }),
        );
      }),
    ['hookwarden endpoints revoke 5f1e…'],
  );

  registerAdmissionCommands(endpoints);
}
