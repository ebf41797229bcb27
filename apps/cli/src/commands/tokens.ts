// `hookwarden tokens …`: people's API tokens (list with every filter, create shown once, revoke).
import type { Command } from 'commander';
import { SCHEMA_ENUMS } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { parseIsoTime } from '../cli/parse';
import { fetchPage, type PageOptions, pageOptions, shortTime, uuid } from './common';
import { choice, CLI_LISTS, filterOptions, filterQuery } from './filters';

/** The roles a token may be created with (from the document). */
const ROLES = SCHEMA_ENUMS['CreateTokenDto.role'];

// Registers the `hookwarden tokens …` commands.
export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').alias('token').description("People's API tokens (admin only)");
  examples(tokens, ['hookwarden tokens create --name ci-plan --role auditor', 'hookwarden tokens list --active']);

  examples(
    filterOptions(
      pageOptions(tokens.command('list').description('List API tokens')),
      CLI_LISTS['/v1/tokens'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/tokens'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/tokens', { query }, opts);
      rt.list(page, [
        { header: 'ID', get: (t) => t.id, max: 36 },
        { header: 'NAME', get: (t) => t.name },
        { header: 'ROLE', get: (t) => t.role },
        { header: 'PREFIX', get: (t) => t.prefix },
        { header: 'EXPIRES', get: (t) => shortTime(t.expiresAt) },
        { header: 'REVOKED', get: (t) => shortTime(t.revokedAt) },
        { header: 'LAST USED', get: (t) => shortTime(t.lastUsedAt) },
      ]);
    }),
    ['hookwarden tokens list --active'],
  );

  examples(
    tokens
      .command('create')
      .description('Create an API token (the secret is shown once)')
      .requiredOption('--name <name>', 'who or what uses it')
      .requiredOption('--role <role>', ROLES.join(' | '))
      .option('--expires <iso>', 'expiry time (ISO 8601)')
      .action(async (opts: { name: string; role: string; expires?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const role = choice(opts.role, ROLES, `--role must be one of ${ROLES.join(', ')}`);
        const res = await (
          await rt.client()
        ).json('POST', '/v1/tokens', {
          body: {
            name: opts.name,
            role,
            expiresAt: opts.expires ? parseIsoTime(opts.expires, '--expires') : undefined,
          },
        });
        if (rt.format === 'json') return rt.json(res);
        rt.out(`Token ${res.id} (${res.role}) — shown only now:\n${res.token}\n`);
      }),
    ['hookwarden tokens create --name ci-apply --role admin --expires 2027-06-30T00:00:00Z'],
  );

  examples(
    tokens
      .command('revoke <id>')
      .description('Revoke an API token')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(await (await rt.client()).json('DELETE', '/v1/tokens/{id}', { path: { id: uuid(id, 'token id') } }));
      }),
    ['hookwarden tokens revoke 9c0d…'],
  );
}
