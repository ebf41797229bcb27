// `hookwarden policies …`: policies (list with every filter, get, create, update, delete).
import type { Command } from 'commander';
import { resolveGroup, resolvePolicy } from '../client/resolve';
import type { PolicyView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import type { Column } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';

const POLICY_COLUMNS: Array<Column<PolicyView>> = [
  { header: 'ID', get: (p) => p.id, max: 36 },
  { header: 'NAME', get: (p) => p.name },
  { header: 'GROUP', get: (p) => p.groupId, max: 36 },
  { header: 'LATEST', get: (p) => p.latestVersion },
  { header: 'UPDATED', get: (p) => shortTime(p.updatedAt) },
];

// Registers the `hookwarden policies …` commands.
export function registerPolicyCommands(program: Command): void {
  const policies = program
    .command('policies')
    .alias('policy')
    .description('Policies (a named requirements.toml owned by one group)');
  examples(policies, ['hookwarden policies list', 'hookwarden policies create baseline --group engineering']);

  examples(
    pageOptions(policies.command('list').description('List policies'))
      .option('--group <group>', 'only policies of this group (id or name)')
      .option('--name-prefix <prefix>', 'only names starting with this')
      .action(async (opts: PageOptions & { group?: string; namePrefix?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        rt.list(
          await fetchPage(client, '/v1/policies', { query: { groupId, namePrefix: opts.namePrefix } }, opts),
          POLICY_COLUMNS,
        );
      }),
    ['hookwarden policies list --group engineering', 'hookwarden policies list --all -o json'],
  );

  examples(
    policies
      .command('get <policy>')
      .description('Show a policy (id or name)')
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await resolvePolicy(await rt.client(), ref));
      }),
    ['hookwarden policies get baseline'],
  );

  examples(
    policies
      .command('create <name>')
      .description('Create a policy in a group (default: the default group)')
      .option('--group <group>', 'owning group (id or name)')
      .option('--description <text>', 'what the policy is for')
      .action(async (name: string, opts: { group?: string; description?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        rt.record(
          await client.json('POST', '/v1/policies', {
            body: { name, description: opts.description, groupId },
          }),
        );
      }),
    ['hookwarden policies create baseline --group engineering --description "Company baseline hooks"'],
  );

  examples(
    policies
      .command('update <policy>')
      .description('Rename a policy, change its description, or move it to another group')
      .option('--name <name>', 'new name')
      .option('--description <text>', 'new description')
      .option('--group <group>', 'move to this group (id or name)')
      .action(async (ref: string, opts: { name?: string; description?: string; group?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.name === undefined && opts.description === undefined && opts.group === undefined) {
          throw new CliError('nothing to change: give --name, --description and/or --group');
        }
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        rt.record(
          await client.json('PATCH', '/v1/policies/{id}', {
            path: { id: p.id },
            body: { name: opts.name, description: opts.description, groupId },
          }),
        );
      }),
    ['hookwarden policies update baseline --group security'],
  );

  examples(
    policies
      .command('delete <policy>')
      .description('Delete a policy that has no versions')
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const p = await resolvePolicy(client, ref);
        rt.record(await client.json('DELETE', '/v1/policies/{id}', { path: { id: p.id } }));
      }),
    ['hookwarden policies delete draft'],
  );
}
