// `hookwarden groups …`: endpoint groups (list, get, create, update, delete).
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { GroupView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';
import type { Column } from '../output/table';

const GROUP_COLUMNS: Array<Column<GroupView>> = [
  { header: 'ID', get: (g) => g.id, max: 36 },
  { header: 'NAME', get: (g) => g.name },
  { header: 'DEFAULT', get: (g) => (g.isDefault ? 'yes' : '') },
  { header: 'DESCRIPTION', get: (g) => g.description, max: 50 },
  { header: 'UPDATED', get: (g) => shortTime(g.updatedAt) },
];

// Registers the `hookwarden groups …` commands.
export function registerGroupCommands(program: Command): void {
  const groups = program.command('groups').alias('group').description('Endpoint groups');
  examples(groups, ['hookwarden groups list', 'hookwarden groups create engineering --description "All developers"']);

  examples(
    pageOptions(groups.command('list').description('List groups (newest first)'))
      .option('--name-prefix <prefix>', 'only groups whose name starts with this')
      .action(async (opts: PageOptions & { namePrefix?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const page = await fetchPage(await rt.client(), '/v1/groups', { query: { namePrefix: opts.namePrefix } }, opts);
        rt.list(page, GROUP_COLUMNS);
      }),
    ['hookwarden groups list', 'hookwarden groups list --all -o json'],
  );

  examples(
    groups
      .command('get <group>')
      .description('Show a group (by id or name)')
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await resolveGroup(await rt.client(), ref));
      }),
    ['hookwarden groups get engineering'],
  );

  examples(
    groups
      .command('create <name>')
      .description('Create a group')
      .option('--description <text>', 'what the group is for')
      .action(async (name: string, opts: { description?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        rt.record(await client.json('POST', '/v1/groups', { body: { name, description: opts.description } }));
      }),
    ['hookwarden groups create engineering --description "All developers"'],
  );

  examples(
    groups
      .command('update <group>')
      .description('Rename a group or change its description')
      .option('--name <name>', 'new name')
      .option('--description <text>', 'new description')
      .action(async (ref: string, opts: { name?: string; description?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.name === undefined && opts.description === undefined) {
          throw new CliError('nothing to change: give --name and/or --description');
        }
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.record(
          await client.json('PATCH', '/v1/groups/{id}', {
            path: { id: g.id },
            body: { name: opts.name, description: opts.description },
          }),
        );
      }),
    ['hookwarden groups update engineering --description "Developers and SREs"'],
  );

  examples(
    groups
      .command('delete <group>')
      .description('Delete a group nothing uses (the default group cannot be deleted)')
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.record(await client.json('DELETE', '/v1/groups/{id}', { path: { id: g.id } }));
      }),
    ['hookwarden groups delete old-team'],
  );
}
