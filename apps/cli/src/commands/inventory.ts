// `hookwarden inventory …`: the fleet hook inventory (hooks by definition hash, plugins, changes, findings, one
// endpoint's latest report) and the known-bad hash deny list.
import type { Command } from 'commander';
import { resolveGroup } from '../client/resolve';
import { runtimeOf } from '../cli/context';
import { CliError } from '../cli/errors';
import { examples } from '../cli/help';
import { isUuid, parseIsoTime } from '../cli/parse';
import { renderRecord, renderTable } from '../output/table';
import { fetchPage, type PageOptions, pageOptions, shortTime } from './common';

interface FleetHook {
  hash: string;
  endpoints: number;
  layers: string[];
  trust: Record<string, number>;
  events: string[];
  programs: string[];
  plugins: string[];
  running: number;
  denied: boolean;
  command: string | null;
}

interface FleetPlugin {
  plugin: string;
  endpoints: number;
  hooks: number;
  untrusted: number;
}

interface InventoryChange {
  id: string;
  endpointId: string;
  at: string;
  digest: string;
  added: number;
  removed: number;
  changes: unknown;
}

interface Finding {
  kind: string;
  endpointId: string;
  hostname: string;
  hash: string | null;
  key: string | null;
  detail: string;
}

interface DeniedHash {
  hash: string;
  reason: string;
  createdAt: string;
  createdBy: string | null;
}

interface InventoryHookRow {
  user: string;
  layer: string;
  event: string;
  matcher: string | null;
  key: string;
  hash: string;
  trust: string;
  plugin: string | null;
  project: string | null;
  fate: string;
  skipReason: string | null;
  program: string | null;
  command: string | null;
}

interface EndpointInventory {
  endpointId: string;
  digest: string;
  collectedAt: string;
  receivedAt: string;
  changedAt: string;
  inventory: {
    commandMode?: string;
    policyRevision?: number | null;
    hooksEnabled?: boolean;
    allowManagedHooksOnly?: boolean;
    hooks?: InventoryHookRow[];
    skippedSources?: unknown[];
    warnings?: Array<{ user: string; code: string; message: string }>;
  };
}

const LAYERS = ['system', 'user', 'project', 'session', 'plugin', 'managed'];
const TRUST = ['managed', 'trusted', 'modified', 'untrusted', 'disabled'];
const HASH = /^sha256:[0-9a-f]{64}$/;

// A definition hash argument: sha256:<64 hex> (a bare 64-hex digest gets the prefix).
function hookHash(text: string, what: string): string {
  const t = text.trim().toLowerCase();
  const h = /^[0-9a-f]{64}$/.test(t) ? `sha256:${t}` : t;
  if (!HASH.test(h))
    throw new CliError(`${what} must be a hook definition hash sha256:<64 hex>, got ${JSON.stringify(text)}`);
  return h;
}

// One of a fixed set of values.
function oneOf(text: string, allowed: string[], what: string): string {
  if (!allowed.includes(text))
    throw new CliError(`${what} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`);
  return text;
}

// A UUID argument.
function uuid(id: string, what: string): string {
  if (!isUuid(id)) throw new CliError(`${what} must be a UUID, got ${JSON.stringify(id)}`);
  return id;
}

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

interface HooksOptions extends PageOptions {
  group?: string;
  layer?: string;
  trust?: string;
  program?: string;
  commandContains?: string;
  plugin?: string;
  hash?: string;
}

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
    pageOptions(inv.command('hooks').description('Hooks across the fleet, grouped by definition hash'))
      .option('--group <group>', 'only endpoints of this group (id or name)')
      .option('--layer <layer>', LAYERS.join(' | '))
      .option('--trust <status>', `only hooks with this trust status somewhere: ${TRUST.join(' | ')}`)
      .option('--program <word>', "the command's first word, exactly (e.g. curl)")
      .option('--command-contains <text>', 'substring of the command text (where the capture mode sends it)')
      .option('--plugin <name>', 'only hooks of this plugin')
      .option('--hash <hash>', 'only this definition hash (sha256:…)')
      .action(async (opts: HooksOptions, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const query = {
          layer: opts.layer !== undefined ? oneOf(opts.layer, LAYERS, '--layer') : undefined,
          trust: opts.trust !== undefined ? oneOf(opts.trust, TRUST, '--trust') : undefined,
          program: opts.program,
          commandContains: opts.commandContains,
          plugin: opts.plugin,
          hash: opts.hash !== undefined ? hookHash(opts.hash, '--hash') : undefined,
        };
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        const page = await fetchPage<FleetHook>(client, '/v1/inventory/hooks', { groupId, ...query }, opts);
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
    inv
      .command('plugins')
      .description('Plugins installed across the fleet: endpoints, hooks, endpoints with untrusted/modified hooks')
      .option('--group <group>', 'only endpoints of this group (id or name)')
      .action(async (opts: { group?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        rt.list(await client.json<{ items: FleetPlugin[] }>('GET', '/v1/inventory/plugins', { query: { groupId } }), [
          { header: 'PLUGIN', get: (p) => p.plugin },
          { header: 'ENDPOINTS', get: (p) => p.endpoints },
          { header: 'HOOKS', get: (p) => p.hooks },
          { header: 'UNTRUSTED', get: (p) => p.untrusted },
        ]);
      }),
    ['hookwarden inventory plugins --group engineering'],
  );

  examples(
    pageOptions(inv.command('changes').description('Inventory changes, newest first: hooks added and removed'))
      .option('--endpoint <id>', 'only this endpoint')
      .option('--since <iso>', 'only changes at or after this time (ISO 8601)')
      .action(async (opts: PageOptions & { endpoint?: string; since?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const query = {
          endpointId: opts.endpoint !== undefined ? uuid(opts.endpoint, '--endpoint') : undefined,
          since: opts.since !== undefined ? parseIsoTime(opts.since, '--since') : undefined,
        };
        const page = await fetchPage<InventoryChange>(await rt.client(), '/v1/inventory/changes', query, opts);
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
    inv
      .command('findings')
      .description('known_bad_hook (a deny-listed hash) and managed_hook_missing findings')
      .option('--group <group>', 'only endpoints of this group (id or name)')
      .option('--endpoint <id>', 'only this endpoint')
      .action(async (opts: { group?: string; endpoint?: string }, cmd: Command) => {
        const rt = runtimeOf(cmd);
        const endpointId = opts.endpoint !== undefined ? uuid(opts.endpoint, '--endpoint') : undefined;
        const client = await rt.client();
        const groupId = opts.group ? (await resolveGroup(client, opts.group)).id : undefined;
        rt.list(
          await client.json<{ items: Finding[] }>('GET', '/v1/inventory/findings', { query: { groupId, endpointId } }),
          [
            { header: 'KIND', get: (f) => f.kind },
            { header: 'HOSTNAME', get: (f) => f.hostname, max: 40 },
            { header: 'ENDPOINT', get: (f) => f.endpointId, max: 36 },
            { header: 'HASH', get: (f) => shortHash(f.hash) },
            { header: 'KEY', get: (f) => f.key, max: 50 },
            { header: 'DETAIL', get: (f) => f.detail, max: 60 },
          ],
        );
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
        ).json<EndpointInventory>('GET', `/v1/endpoints/${uuid(id, 'endpoint id')}/inventory`);
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
        rt.list(await (await rt.client()).json<{ items: DeniedHash[] }>('GET', '/v1/inventory/denied-hashes'), [
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
        ).json<DeniedHash>('POST', '/v1/inventory/denied-hashes', { body: { hash: h, reason: opts.reason } });
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
        ).json<{ removed: true }>('DELETE', `/v1/inventory/denied-hashes/${encodeURIComponent(h)}`);
        if (rt.format === 'json') return rt.json({ hash: h, ...res });
        rt.out(`Removed ${h} from the deny list.\n`);
      }),
    ['hookwarden inventory allow sha256:3f0c…'],
  );
}
