// `hookwarden inventory …`: the fleet hook inventory (hooks by definition hash, plugins, changes, findings, one
// endpoint's latest report) and the known-bad hash deny list.
import type { Command } from 'commander';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { renderRecord, renderTable } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, shortTime, uuid } from './common';
import { CLI_LISTS, filterOptions, filterQuery, hookHash } from './filters';

// A hash shortened for tables (sha256: + 12 hex); -o json has the full hash.
export function shortHash(h: string | null | undefined): string {
  if (!h) return '-';
  return h.startsWith('sha256:') ? h.slice(0, 19) : h.slice(0, 12);
}

// Trust counts as `trusted:3,untrusted:1`.
const trustText = (t: Record<string, number>) =>
  Object.entries(t)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}:${n}`)
    .join(',') || '-';

// Registers `inventory`.
export function registerInventoryCommands(program: Command): void {
  const inv = program
    .command('inventory')
    .description('The fleet hook inventory agents report: hooks, plugins, changes, findings, the deny list');
  examples(inv, [
    'hookwarden inventory hooks --trust untrusted',
    'hookwarden inventory hooks --program curl --group engineering',
    'hookwarden inventory deny sha256:… --reason "exfiltrates ~/.ssh"',
  ]);

  examples(
    filterOptions(
      pageOptions(inv.command('hooks').description('Hooks across the fleet, grouped by definition hash')),
      CLI_LISTS['/v1/inventory/hooks'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/inventory/hooks'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/inventory/hooks', { query }, opts);
      rt.list(page, [
        { header: 'HASH', get: (h) => shortHash(h.hash) },
        { header: 'ENDPOINTS', get: (h) => h.endpoints },
        { header: 'LAYERS', get: (h) => h.layers, max: 30 },
        { header: 'TRUST', get: (h) => trustText(h.trust), max: 40 },
        { header: 'EVENTS', get: (h) => h.events, max: 30 },
        { header: 'PROGRAMS', get: (h) => h.programs, max: 30 },
        { header: 'PLUGINS', get: (h) => h.plugins, max: 30 },
        { header: 'RUNNING', get: (h) => h.running },
        { header: 'DENIED', get: (h) => h.denied },
        { header: 'COMMAND', get: (h) => h.command, max: 50 },
      ]);
    }),
    [
      'hookwarden inventory hooks --trust modified',
      'hookwarden inventory hooks --command-contains "| sh" --all -o json',
      'hookwarden inventory hooks --layer plugin --plugin acme-tools',
    ],
  );

  examples(
    filterOptions(
      inv
        .command('plugins')
        .description('Plugins installed across the fleet: endpoints, hooks, endpoints with untrusted/modified hooks'),
      CLI_LISTS['/v1/inventory/plugins'].filters,
    ).action(async (opts: object, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/inventory/plugins'].filters, opts);
      rt.list(await (await rt.client()).json('GET', '/v1/inventory/plugins', { query }), [
        { header: 'PLUGIN', get: (p) => p.plugin },
        { header: 'ENDPOINTS', get: (p) => p.endpoints },
        { header: 'HOOKS', get: (p) => p.hooks },
        { header: 'UNTRUSTED', get: (p) => p.untrusted },
      ]);
    }),
    ['hookwarden inventory plugins --group engineering'],
  );

  examples(
    filterOptions(
      pageOptions(inv.command('changes').description('Inventory changes, newest first: hooks added and removed')),
      CLI_LISTS['/v1/inventory/changes'].filters,
    ).action(async (opts: PageOptions, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/inventory/changes'].filters, opts);
      const page = await fetchPage(await rt.client(), '/v1/inventory/changes', { query }, opts);
      rt.list(page, [
        { header: 'AT', get: (c) => shortTime(c.at) },
        { header: 'ENDPOINT', get: (c) => c.endpointId, max: 36 },
        { header: 'ADDED', get: (c) => c.added },
        { header: 'REMOVED', get: (c) => c.removed },
        { header: 'DIGEST', get: (c) => shortHash(c.digest) },
      ]);
    }),
    [
      'hookwarden inventory changes --since 2026-12-01T00:00:00Z',
      'hookwarden inventory changes --endpoint 5f1e… -o json',
    ],
  );

  examples(
    filterOptions(
      inv.command('findings').description('known_bad_hook (a deny-listed hash) and managed_hook_missing findings'),
      CLI_LISTS['/v1/inventory/findings'].filters,
    ).action(async (opts: object, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const query = await filterQuery(rt, CLI_LISTS['/v1/inventory/findings'].filters, opts);
      rt.list(await (await rt.client()).json('GET', '/v1/inventory/findings', { query }), [
        { header: 'KIND', get: (f) => f.kind },
        { header: 'HOSTNAME', get: (f) => f.hostname, max: 40 },
        { header: 'ENDPOINT', get: (f) => f.endpointId, max: 36 },
        { header: 'HASH', get: (f) => shortHash(f.hash) },
        { header: 'KEY', get: (f) => f.key, max: 50 },
        { header: 'DETAIL', get: (f) => f.detail, max: 60 },
      ]);
    }),
    ['hookwarden inventory findings --group engineering'],
  );

  examples(
    inv
      .command('endpoint <id>')
      .description("An endpoint's latest inventory report, hook by hook")
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const res = await (
          await rt.client()
        ).json('GET', '/v1/endpoints/{id}/inventory', { path: { id: uuid(id, 'endpoint id') } });
        if (rt.format === 'json') return rt.json(res);
        const doc = res.inventory ?? {};
        rt.out(
          renderRecord({
            endpoint: res.endpointId,
            digest: res.digest,
            collected: shortTime(res.collectedAt),
            received: shortTime(res.receivedAt),
            changed: shortTime(res.changedAt),
            commandMode: doc.commandMode,
            policyRevision: doc.policyRevision,
            hooksEnabled: doc.hooksEnabled,
            allowManagedHooksOnly: doc.allowManagedHooksOnly,
            hooks: doc.hooks?.length ?? 0,
            skippedSources: doc.skippedSources?.length ?? 0,
            warnings: doc.warnings?.length ?? 0,
          }),
        );
        const hooks = doc.hooks ?? [];
        if (hooks.length) {
          rt.out('\n');
          rt.out(
            renderTable(hooks, [
              { header: 'LAYER', get: (h) => h.layer },
              { header: 'USER', get: (h) => h.user || '-' },
              { header: 'EVENT', get: (h) => h.event },
              { header: 'MATCHER', get: (h) => h.matcher, max: 20 },
              { header: 'HASH', get: (h) => shortHash(h.hash) },
              { header: 'TRUST', get: (h) => h.trust },
              { header: 'FATE', get: (h) => (h.fate === 'skipped' ? `skipped (${h.skipReason ?? '?'})` : h.fate) },
              { header: 'PROGRAM', get: (h) => h.program ?? h.command, max: 30 },
              { header: 'PLUGIN/PROJECT', get: (h) => h.plugin ?? h.project, max: 40 },
            ]),
          );
        }
        for (const w of (doc.warnings ?? []).slice(0, 50))
          rt.out(`warning: ${w.user ? `${w.user}: ` : ''}${w.message} [${w.code}]\n`);
      }),
    ['hookwarden inventory endpoint 5f1e…', 'hookwarden inventory endpoint 5f1e… -o json | jq .inventory.hooks'],
  );

  examples(
    inv
      .command('denied')
      .description('The known-bad hook hash deny list')
      .action(async (_o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        rt.list(await (await rt.client()).json('GET', '/v1/inventory/denied-hashes'), [
          { header: 'HASH', get: (d) => d.hash, max: 71 },
          { header: 'REASON', get: (d) => d.reason, max: 60 },
          { header: 'CREATED', get: (d) => shortTime(d.createdAt) },
          { header: 'BY', get: (d) => d.createdBy },
        ]);
      }),
    ['hookwarden inventory denied -o json'],
  );

  examples(
    inv
      .command('deny <hash>')
      .description('Add a hook definition hash to the deny list: matching hooks become known_bad_hook findings (admin)')
      .requiredOption('--reason <text>', 'why it is known-bad (shown with every finding)')
      .action(async (hash: string, opts: { reason: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const h = hookHash(hash, 'the hash');
        if (opts.reason.trim() === '') throw new CliError('--reason must not be empty');
        const res = await (
          await rt.client()
        ).json('POST', '/v1/inventory/denied-hashes', { body: { hash: h, reason: opts.reason } });
        if (rt.format === 'json') return rt.json(res);
        rt.out(`Denied ${res.hash}: ${res.reason}\n`);
      }),
    ['hookwarden inventory deny sha256:3f0c… --reason "posts the repository to a pastebin"'],
  );

  examples(
    inv
      .command('allow <hash>')
      .alias('undeny')
      .description('Remove a hook definition hash from the deny list (admin)')
      .action(async (hash: string, _o: unknown, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const h = hookHash(hash, 'the hash');
        const res = await (
          await rt.client()
        ).json('DELETE', '/v1/inventory/denied-hashes/{hash}', { path: { hash: h } });
        if (rt.format === 'json') return rt.json({ hash: h, ...res });
        rt.out(`Removed ${h} from the deny list.\n`);
      }),
    ['hookwarden inventory allow sha256:3f0c…'],
  );
}
