// `hookwarden endpoints …`, `enrollment-secrets …`, `tokens …` and `signing-keys …`.
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { Schemas } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIntIn, parseIsoTime } from '../cli/parse';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';
import { CLI_LISTS, filterOptions, filterQuery } from './filters';

type SecretView = Schemas['EnrollmentSecretViewDto'];
type SigningKeyView = Schemas['SigningKeyViewDto'];

// Checks a UUID argument.
function uuid(id: string, what: string): string {
  if (!isUuid(id)) throw new CliError(`${what} must be a UUID, got ${JSON.stringify(id)}`);
  return id;
}

// Registers endpoints, enrollment-secrets, tokens and signing-keys.
export function registerFleetCommands(program: Command): void {
  const endpoints = program
    .command('endpoints')
    .alias('endpoint')
    .description('Enrolled endpoints (machines running the agent)');
  examples(endpoints, [
    'hookwarden endpoints list --group engineering --state failed',
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
      ]);
    }),
    ['hookwarden endpoints list --state drifted', 'hookwarden endpoints list --group engineering --all -o json'],
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
      .description('Revoke an endpoint: its agent gets 401 from now on')
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
      .requiredOption('--role <role>', 'admin | auditor')
      .option('--expires <iso>', 'expiry time (ISO 8601)')
      .action(async (opts: { name: string; role: string; expires?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        if (opts.role !== 'admin' && opts.role !== 'auditor') throw new CliError('--role must be admin or auditor');
        const res = await (
          await rt.client()
        ).json('POST', '/v1/tokens', {
          body: {
            name: opts.name,
            role: opts.role,
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

  const keys = program
    .command('signing-keys')
    .description('Bundle-signing keys: list, add, activate, retire (rotation without downtime)');
  examples(keys, ['hookwarden signing-keys list', 'hookwarden signing-keys create --activate']);

  const keyColumns = [
    { header: 'KID', get: (k: SigningKeyView) => k.kid, max: 40 },
    {
      header: 'STATUS',
      get: (k: SigningKeyView) => k.status ?? (k.retiredAt ? 'retired' : k.activatedAt ? 'active' : 'trusted'),
    },
    { header: 'CREATED', get: (k: SigningKeyView) => shortTime(k.createdAt) },
    { header: 'ACTIVATED', get: (k: SigningKeyView) => shortTime(k.activatedAt) },
    { header: 'RETIRED', get: (k: SigningKeyView) => shortTime(k.retiredAt) },
  ];
  examples(
    keys
      .command('list')
      .description('List every signing key (admin)')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.list(await (await rt.client()).json('GET', '/v1/signing-keys'), keyColumns);
      }),
    ['hookwarden signing-keys list -o json'],
  );

  examples(
    keys
      .command('trusted')
      .description('The trusted public keys as agents get them (admins and auditors)')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const res = await (await rt.client()).json('GET', '/v1/signing-keys/trusted');
        if (rt.format === 'json') return rt.json(res);
        rt.list({ items: res.keys }, [{ header: 'KID', get: (k) => k.kid }]);
        rt.out(`(list signed by ${res.keyId})\n`);
      }),
    ['hookwarden signing-keys trusted'],
  );

  examples(
    keys
      .command('create')
      .description('Generate a new key on the server')
      .option('--activate', 'make it sign new bundles right away')
      .action(async (opts: { activate?: boolean }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.record(
          await (await rt.client()).json('POST', '/v1/signing-keys', { body: { activate: opts.activate ?? false } }),
        );
      }),
    ['hookwarden signing-keys create --activate'],
  );

  for (const [name, description, route] of [
    ['activate', 'Make a key sign new bundles', '/v1/signing-keys/{kid}/activate'],
    ['retire', 'Drop a key from the list sent to agents (not the active one)', '/v1/signing-keys/{kid}/retire'],
  ] as const) {
    examples(
      keys
        .command(`${name} <kid>`)
        .description(description)
        .action(async (kid: string, _o: unknown, cmd: Command) => {
          const rt = runtimeOf(cmd);
          rt.record(await (await rt.client()).json('POST', route, { path: { kid } }));
        }),
      [`hookwarden signing-keys ${name} ed25519:0123456789abcdef`],
    );
  }
}
