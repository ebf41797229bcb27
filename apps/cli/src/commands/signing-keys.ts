// `hookwarden signing-keys …`: bundle-signing keys (list, trusted, create, activate, retire).
import type { Command } from 'commander';
import type { Schemas } from '@hookwarden/admin-client';
import { runtimeOf } from '../cli/context';
import { examples } from '../cli/help';
import { shortTime } from './common';

type SigningKeyView = Schemas['SigningKeyViewDto'];

// Registers the `hookwarden signing-keys …` commands.
export function registerSigningKeyCommands(program: Command): void {
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
