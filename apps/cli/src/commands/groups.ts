// `hookwarden groups …` and `hookwarden audit-settings …`.
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { AuditSettings, GroupView } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { parseIntIn } from '../cli/parse';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';
import type { Column } from '../output/table';

const GROUP_COLUMNS: Array<Column<GroupView>> = [
  { header: 'ID', get: (g) => g.id, max: 36 },
  { header: 'NAME', get: (g) => g.name },
  { header: 'DEFAULT', get: (g) => (g.isDefault ? 'yes' : '') },
  { header: 'DESCRIPTION', get: (g) => g.description, max: 50 },
  { header: 'UPDATED', get: (g) => shortTime(g.updatedAt) },
];

// Registers `groups` and `audit-settings`.
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

  const settings = program
    .command('audit-settings')
    .description("A group's capture policy for hook-run output (none, digests, excerpts)");
  examples(settings, [
    'hookwarden audit-settings get engineering',
    'hookwarden audit-settings set engineering --capture digests',
  ]);

  examples(
    settings
      .command('get <group>')
      .description("Show a group's capture settings")
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.record(await client.json('GET', '/v1/groups/{id}/audit-settings', { path: { id: g.id } }));
      }),
    ['hookwarden audit-settings get engineering -o json'],
  );

  examples(
    settings
      .command('set <group>')
      .description("Change a group's capture settings (unset options keep their current value)")
      .option('--capture <mode>', 'none | digests | excerpts')
      .option('--max-excerpt-bytes <n>', 'largest excerpt kept per stream (0..65536)')
      .option('--redact <regex...>', 'extra redaction patterns (replaces the list)')
      .option('--default-redact', 'apply the built-in secret patterns')
      .option('--no-default-redact', 'do not apply the built-in secret patterns')
      .action(
        async (
          ref: string,
          opts: { capture?: string; maxExcerptBytes?: string; redact?: string[]; defaultRedact?: boolean },
          cmd: Command,
        ) => {
          const rt = runtimeOf(cmd);
          const client = await rt.client();
          const g = await resolveGroup(client, ref);
          const current = await client.json('GET', '/v1/groups/{id}/audit-settings', { path: { id: g.id } });
          if (opts.capture !== undefined && !['none', 'digests', 'excerpts'].includes(opts.capture)) {
            throw new CliError(`--capture must be none, digests or excerpts, got ${JSON.stringify(opts.capture)}`);
          }
          const next: AuditSettings = {
            capture: (opts.capture as AuditSettings['capture'] | undefined) ?? current.capture,
            maxExcerptBytes: opts.maxExcerptBytes
              ? parseIntIn(opts.maxExcerptBytes, '--max-excerpt-bytes', 0, 65_536)
              : current.maxExcerptBytes,
            redactPatterns: opts.redact ?? current.redactPatterns,
            useDefaultRedact: opts.defaultRedact ?? current.useDefaultRedact,
          };
          rt.record(await client.json('PUT', '/v1/groups/{id}/audit-settings', { path: { id: g.id }, body: next }));
        },
      ),
    ['hookwarden audit-settings set engineering --capture excerpts --max-excerpt-bytes 4096 --redact "ACME-[0-9]+"'],
  );
}
