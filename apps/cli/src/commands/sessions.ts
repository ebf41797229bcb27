// `hookwarden sessions …`: people's SSO sessions, for admins (list with every filter, revoke).
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { fetchPage, type PageOptions, pageOptions, shortTime, uuid } from './common';
import { CLI_LISTS, filterOptions, filterQuery } from './filters';

// Registers the `hookwarden sessions …` commands.
export function registerSessionCommands(program: Command): void {
  const sessions = program
    .command('sessions')
    .alias('session')
    .description("People's SSO sessions (console and personal-token sign-ins): list and revoke (admin only)");
  examples(sessions, ['hookwarden sessions list --active --subject alice', 'hookwarden sessions revoke 5b1e…']);

  examples(
    filterOptions(
      pageOptions(sessions.command('list').description('List SSO sessions, newest first')),
      CLI_LISTS['/v1/sessions'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/sessions'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/sessions', { query }, opts);
      rt.list(page, [
        { header: 'ID', get: (s) => s.id, max: 36 },
        { header: 'SUBJECT', get: (s) => s.subject, max: 40 },
        { header: 'EMAIL', get: (s) => s.email ?? '-', max: 40 },
        { header: 'ROLE', get: (s) => s.role },
        { header: 'LAST SEEN', get: (s) => shortTime(s.lastSeenAt) },
        { header: 'EXPIRES', get: (s) => shortTime(s.expiresAt) },
        { header: 'REVOKED', get: (s) => (s.revokedAt ? `${shortTime(s.revokedAt)} ${s.revokedReason ?? ''}` : '-') },
      ]);
    }),
    ['hookwarden sessions list --active', 'hookwarden sessions list --ended --subject alice -o json'],
  );

  examples(
    sessions
      .command('revoke <id>')
      .description('Revoke an SSO session at once, with the personal tokens it minted (audited)')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (await rt.client()).json('DELETE', '/v1/sessions/{id}', { path: { id: uuid(id, 'session id') } }),
        );
      }),
    ['hookwarden sessions revoke 5b1e…'],
  );
}
