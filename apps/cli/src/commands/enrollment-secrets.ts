// `hookwarden enrollment-secrets …`: a group's enrollment secrets (list, create shown once, revoke).
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { Schemas } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { parseIntIn, parseIsoTime } from '../cli/parse';
import { shortTime, uuid } from './common';

type SecretView = Schemas['EnrollmentSecretViewDto'];

// Registers the `hookwarden enrollment-secrets …` commands.
export function registerEnrollmentSecretCommands(program: Command): void {
  const secrets = program.command('enrollment-secrets').description("A group's enrollment secrets (hws_…)");
  examples(secrets, ['hookwarden enrollment-secrets create engineering --name laptops --max-uses 500']);

  const secretColumns = [
    { header: 'ID', get: (s: SecretView) => s.id, max: 36 },
    { header: 'NAME', get: (s: SecretView) => s.name },
    { header: 'PREFIX', get: (s: SecretView) => s.prefix },
    { header: 'USES', get: (s: SecretView) => `${s.uses}/${s.maxUses ?? '∞'}` },
    { header: 'EXPIRES', get: (s: SecretView) => shortTime(s.expiresAt) },
    { header: 'REVOKED', get: (s: SecretView) => shortTime(s.revokedAt) },
  ];
  examples(
    secrets
      .command('list <group>')
      .description("List a group's enrollment secrets")
      .action(async (ref: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        rt.list(
          await client.json('GET', '/v1/groups/{groupId}/enrollment-secrets', { path: { groupId: g.id } }),
          secretColumns,
        );
      }),
    ['hookwarden enrollment-secrets list engineering'],
  );

  examples(
    secrets
      .command('create <group>')
      .description('Create an enrollment secret (shown once)')
      .option('--name <text>', 'what it is for')
      .option('--expires <iso>', 'expiry time (ISO 8601)')
      .option('--max-uses <n>', 'how many enrollments it allows')
      .action(async (ref: string, opts: { name?: string; expires?: string; maxUses?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const g = await resolveGroup(client, ref);
        const res = await client.json('POST', '/v1/groups/{groupId}/enrollment-secrets', {
          path: { groupId: g.id },
          body: {
            name: opts.name,
            expiresAt: opts.expires ? parseIsoTime(opts.expires, '--expires') : undefined,
            maxUses: opts.maxUses ? parseIntIn(opts.maxUses, '--max-uses', 1, 1_000_000) : undefined,
          },
        });
        if (rt.format === 'json') return rt.json(res);
        rt.out(`Enrollment secret ${res.id} for group "${g.name}" (shown only now):\n${res.secret}\n`);
      }),
    ['hookwarden enrollment-secrets create engineering --name "laptops 2027" --expires 2027-01-31T00:00:00Z'],
  );

  examples(
    secrets
      .command('revoke <id>')
      .description('Revoke an enrollment secret')
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (
            await rt.client()
          ).json('POST', '/v1/enrollment-secrets/{id}/revoke', { path: { id: uuid(id, 'secret id') } }),
        );
      }),
    ['hookwarden enrollment-secrets revoke 77aa…'],
  );
}
