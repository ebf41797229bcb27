// `hookwarden endpoints …`, `enrollment-secrets …`, `tokens …` and `signing-keys …`.
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import type { PublicKeyList } from '../client/types';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIntIn, parseIsoTime } from '../cli/parse';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';
import { admissionColumns, admissionOption, type AdmissionView, registerAdmissionCommands } from './endpoint-admission';

interface EndpointView extends AdmissionView {
  groupId: string;
  platform: string;
  agentVersion: string;
  state: string;
  lastSeenAt: string | null;
  appliedRevision: number | null;
  appliedPolicyVersion: number | null;
  targetRevision: number | null;
}

type ListOptions = PageOptions & { group?: string; state?: string; platform?: string; admission?: string };

interface SecretView {
  id: string;
  groupId: string;
  name: string;
  prefix: string;
  maxUses: number | null;
  uses: number;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

interface TokenView {
  id: string;
  name: string;
  role: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

interface SigningKeyView {
  kid: string;
  publicKeyPem: string;
  createdAt: string;
  activatedAt: string | null;
  retiredAt: string | null;
  status?: string;
}

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
    'hookwarden endpoints list --admission pending',
    'hookwarden endpoints approve 5f1e…',
    'hookwarden endpoints revoke 5f1e…',
  ]);

  examples(
    pageOptions(endpoints.command('list').description('List endpoints, filtered'), 500)
      .option('--group <group>', 'only this group (id or name)')
      .option('--state <state>', 'pending | applied | failed | drifted | revoked')
      .option('--platform <platform>', 'linux | darwin | win32 …')
      .option('--admission <admission>', 'active | pending (duplicate machine ids to decide) | rejected | retired')
      .action(async (opts: ListOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const admission = admissionOption(opts.admission);
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        const page = await fetchPage<EndpointView>(
          client,
          '/v1/endpoints',
          { groupId, state: opts.state, platform: opts.platform, admission },
          opts,
          500,
        );
        rt.list(page, [
          { header: 'ID', get: (e) => e.id, max: 36 },
          { header: 'HOSTNAME', get: (e) => e.hostname, max: 40 },
          { header: 'GROUP', get: (e) => e.groupName },
          { header: 'PLATFORM', get: (e) => e.platform },
          { header: 'STATE', get: (e) => e.state },
          { header: 'REVISION', get: (e) => `${e.appliedRevision ?? '-'}/${e.targetRevision ?? '-'}` },
          { header: 'AGENT', get: (e) => e.agentVersion },
          { header: 'LAST SEEN', get: (e) => shortTime(e.lastSeenAt) },
          ...admissionColumns<EndpointView>(),
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
          await (await rt.client()).json<Record<string, unknown>>('GET', `/v1/endpoints/${uuid(id, 'endpoint id')}`),
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
          ).json<Record<string, unknown>>('POST', `/v1/endpoints/${uuid(id, 'endpoint id')}/revoke`),
        );
      }),
    ['hookwarden endpoints revoke 5f1e…'],
  );

  registerAdmissionCommands(endpoints);

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
          await client.json<{ items: SecretView[] }>('GET', `/v1/groups/${g.id}/enrollment-secrets`),
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
        const res = await client.json<SecretView & { secret: string }>(
          'POST',
          `/v1/groups/${g.id}/enrollment-secrets`,
          {
            body: {
              name: opts.name,
              expiresAt: opts.expires ? parseIsoTime(opts.expires, '--expires') : undefined,
              maxUses: opts.maxUses ? parseIntIn(opts.maxUses, '--max-uses', 1, 1_000_000) : undefined,
            },
          },
        );
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
          await (await rt.client()).json<SecretView>('POST', `/v1/enrollment-secrets/${uuid(id, 'secret id')}/revoke`),
        );
      }),
    ['hookwarden enrollment-secrets revoke 77aa…'],
  );

  const tokens = program.command('tokens').alias('token').description("People's API tokens (admin only)");
  examples(tokens, ['hookwarden tokens create --name ci-plan --role auditor', 'hookwarden tokens list --active']);

  examples(
    pageOptions(tokens.command('list').description('List API tokens'))
      .option('--active', 'only live tokens')
      .option('--inactive', 'only revoked or expired tokens')
      .action(async (opts: PageOptions & { active?: boolean; inactive?: boolean }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const active = opts.active ? 'true' : opts.inactive ? 'false' : undefined;
        const page = await fetchPage<TokenView>(await rt.client(), '/v1/tokens', { active }, opts);
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
        ).json<TokenView & { token: string }>('POST', '/v1/tokens', {
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
        rt.record(await (await rt.client()).json<TokenView>('DELETE', `/v1/tokens/${uuid(id, 'token id')}`));
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
        rt.list(await (await rt.client()).json<{ items: SigningKeyView[] }>('GET', '/v1/signing-keys'), keyColumns);
      }),
    ['hookwarden signing-keys list -o json'],
  );

  examples(
    keys
      .command('trusted')
      .description('The trusted public keys as agents get them (admins and auditors)')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const res = await (await rt.client()).json<PublicKeyList>('GET', '/v1/signing-keys/trusted');
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
          await (
            await rt.client()
          ).json<SigningKeyView>('POST', '/v1/signing-keys', { body: { activate: opts.activate ?? false } }),
        );
      }),
    ['hookwarden signing-keys create --activate'],
  );

  for (const [name, description] of [
    ['activate', 'Make a key sign new bundles'],
    ['retire', 'Drop a key from the list sent to agents (not the active one)'],
  ] as const) {
    examples(
      keys
        .command(`${name} <kid>`)
        .description(description)
        .action(async (kid: string, _o: unknown, cmd: Command) => {
          const rt = runtimeOf(cmd);
          rt.record(
            await (
              await rt.client()
            ).json<SigningKeyView>('POST', `/v1/signing-keys/${encodeURIComponent(kid)}/${name}`),
          );
        }),
      [`hookwarden signing-keys ${name} ed25519:0123456789abcdef`],
    );
  }
}
