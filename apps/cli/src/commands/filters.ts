// The filter options of list commands, one table per API list route keyed by the route's filters (its query
// parameters from the OpenAPI document, minus paging and format): a filter the API adds and no table names fails the
// type check, and `filterOptions`/`filterQuery` turn a table into the command's options and the request's query.
import { type Command, Option } from 'commander';
import {
  type FilterName,
  type ListPath,
  type PathsWith,
  QUERY_ENUMS,
  type QueryParams,
  SCHEMA_ENUMS,
} from '@hookwarden/admin-client';
import { type ApiClient } from '../client/api-client';
import { resolveGroup } from '../client/resolve';
import { CliError } from '../cli/errors';
import { isUuid, parseIsoTime } from '../cli/parse';
import { ADMISSIONS } from './endpoint-admission';

/** How one filter is offered: its flag and help, and how its text becomes the query value. */
export type FilterSpec =
  | {
      flag: string;
      help: string;
      /** Checks/normalises the value (`flag` is the long flag, for messages); default: passed as is. */
      check?: (text: string, flag: string) => string;
      /** The value is a group id or name, resolved to the id. */
      group?: true;
      /** The value is comma-separated group ids or names, each resolved to its id. */
      groups?: true;
    }
  | {
      /** A switch: present sends `true`; `off` names the switch that sends `false`. */
      flag: string;
      help: string;
      switch: true;
      off?: { flag: string; help: string };
    };

/** Every filter of a route, each offered once. */
export type FilterTable<P extends PathsWith<'GET'>> = { readonly [K in FilterName<P>]: FilterSpec };

// A UUID filter's check, with the name of what it identifies in the message.
export function uuidOf(what: string): (text: string, flag: string) => string {
  return (text, flag) => {
    if (!isUuid(text)) throw new CliError(`${flag} must be ${what}, got ${JSON.stringify(text)}`);
    return text;
  };
}

// A check accepting one of a fixed set of values.
export function oneOf(allowed: readonly string[]): (text: string, flag: string) => string {
  return (text, flag) => {
    if (!allowed.includes(text))
      throw new CliError(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`);
    return text;
  };
}

// One of a fixed set of values, typed as that set (for options such as --format and --bucket).
export function choice<T extends string>(text: string, allowed: readonly T[], message: string): T {
  const found = allowed.find((a) => a === text);
  if (found === undefined) throw new CliError(message);
  return found;
}

// The check of a true/false filter.
export function trueOrFalse(text: string, flag: string): string {
  if (text !== 'true' && text !== 'false') throw new CliError(`${flag} must be true or false`);
  return text;
}

/** The check of a time filter (ISO 8601). */
export const isoTime = (text: string, flag: string): string => parseIsoTime(text, flag);

// The long flag of an option's flags (`--skip-reason <reason>` → `--skip-reason`).
const longFlag = (flags: string): string => new Option(flags).long ?? flags;
// The attribute commander stores an option under (`--skip-reason` → `skipReason`).
const attributeOf = (flags: string): string => new Option(flags).attributeName();

// Adds a table's filters to a command, in the table's order.
export function filterOptions(cmd: Command, table: Readonly<Record<string, FilterSpec>>): Command {
  for (const spec of Object.values(table)) {
    cmd.option(spec.flag, spec.help);
    if ('switch' in spec && spec.off) cmd.option(spec.off.flag, spec.off.help);
  }
  return cmd;
}

// The flags a table offers (every long flag, switches' `off` included), for help and tests.
export function filterFlags(table: Readonly<Record<string, FilterSpec>>): string[] {
  return Object.values(table).flatMap((s) => [
    longFlag(s.flag),
    ...('switch' in s && s.off ? [longFlag(s.off.flag)] : []),
  ]);
}

/** The query a table's filters make (every filter of the route, absent ones undefined). */
export type FilterQuery<P extends PathsWith<'GET'>> = Pick<QueryParams<'GET', P>, FilterName<P>>;

// The API query of a command's parsed options: every value checked first, then groups resolved by id or name.
export async function filterQuery<P extends PathsWith<'GET'>>(
  rt: { client(): Promise<ApiClient> },
  table: FilterTable<P>,
  opts: object,
): Promise<FilterQuery<P>> {
  const given = opts as Record<string, unknown>;
  const out: Record<string, string | undefined> = {};
  const groups: Array<[string, string]> = [];
  for (const [name, spec] of Object.entries<FilterSpec>(table)) {
    const value = given[attributeOf(spec.flag)];
    if ('switch' in spec) {
      const off = spec.off ? given[attributeOf(spec.off.flag)] : undefined;
      out[name] = value ? 'true' : off ? 'false' : undefined;
    } else if (typeof value === 'string') {
      if (spec.group || spec.groups) groups.push([name, value]);
      else out[name] = spec.check ? spec.check(value, longFlag(spec.flag)) : value;
    } else out[name] = undefined;
  }
  for (const [name, ref] of groups) {
    const spec = (table as Record<string, FilterSpec>)[name]!;
    const refs = 'groups' in spec && spec.groups ? ref.split(',').map((r) => r.trim()) : [ref];
    const ids: string[] = [];
    for (const r of refs.filter((r) => r !== '')) ids.push((await resolveGroup(await rt.client(), r)).id);
    out[name] = ids.join(',');
  }
  // Each value was checked against the filter's rule above; the API validates it again.
  return out as FilterQuery<P>;
}

/** Layers and trust statuses of the inventory filters (generated from the document, like every list below). */
export const LAYERS = QUERY_ENUMS['/v1/inventory/hooks'].layer;
export const TRUST = QUERY_ENUMS['/v1/inventory/hooks'].trust;
const ENDPOINT_STATES = QUERY_ENUMS['/v1/endpoints'].state;
const TOKEN_ROLES = QUERY_ENUMS['/v1/tokens'].role;
const FINDING_KINDS = QUERY_ENUMS['/v1/findings'].kind;
const ALERT_STATES = QUERY_ENUMS['/v1/alerts'].state;
const TARGET_TYPES = QUERY_ENUMS['/v1/audit-log'].targetType;
const FLEET_STATES = SCHEMA_ENUMS['FleetPageDto.items.state'];
const FLEET_SORTS = QUERY_ENUMS['/v1/fleet/endpoints'].sort;
const FLEET_ORDERS = QUERY_ENUMS['/v1/fleet/endpoints'].order;

const HOOK_RUN_FILTERS = {
  endpointId: { flag: '--endpoint <id>', help: 'endpoint id', check: uuidOf('an endpoint id (UUID)') },
  groupId: { flag: '--group <group>', help: 'group (id or name)', group: true },
  event: { flag: '--event <events>', help: 'event name(s), comma-separated (e.g. PreToolUse,Stop)' },
  toolName: { flag: '--tool <name>', help: 'tool name (e.g. Bash)' },
  decision: { flag: '--decision <decisions>', help: 'decision(s), comma-separated (e.g. deny,block)' },
  status: { flag: '--status <statuses>', help: 'ran, skipped, failed, timed_out (comma-separated)' },
  skipReason: { flag: '--skip-reason <reason>', help: 'skip reason' },
  hookKey: { flag: '--hook-key <key>', help: 'hook key' },
  hookHash: { flag: '--hook-hash <hash>', help: 'hook hash' },
  managed: {
    flag: '--managed <bool>',
    help: 'true: managed hooks only; false: user/project hooks only',
    check: trueOrFalse,
  },
  policyRevision: { flag: '--policy-revision <rev>', help: 'policy revision in force on the endpoint' },
  policyDigest: { flag: '--policy-digest <digest>', help: 'policy digest' },
  sessionId: { flag: '--session <id>', help: 'session id' },
  toolCommand: {
    flag: '--tool-command <text>',
    help: "substring of the tool call's command (where the capture mode keeps it)",
  },
  shadowReleaseId: {
    flag: '--shadow-release <id>',
    help: "runs of this shadow release's layer (observe mode; stats and top count enforced runs only without it)",
  },
  from: { flag: '--from <iso>', help: 'runs started at or after (ISO 8601)', check: isoTime },
  to: { flag: '--to <iso>', help: 'runs started before (ISO 8601)', check: isoTime },
} as const satisfies FilterTable<'/v1/hook-runs'>;

const AUDIT_FILTERS = {
  action: { flag: '--action <action>', help: 'exact action, e.g. policy.version.create' },
  actionPrefix: { flag: '--action-prefix <prefix>', help: 'action prefix, e.g. group.' },
  actor: { flag: '--actor <actor>', help: 'actor id or name' },
  targetType: {
    flag: '--target-type <type>',
    help: `target type: ${TARGET_TYPES.join(' | ')}`,
    check: oneOf(TARGET_TYPES),
  },
  targetId: { flag: '--target-id <id>', help: 'target id' },
  from: { flag: '--from <iso>', help: 'entries at or after (ISO 8601)', check: isoTime },
  to: { flag: '--to <iso>', help: 'entries before (ISO 8601)', check: isoTime },
} as const satisfies FilterTable<'/v1/audit-log'>;

const HASH = /^sha256:[0-9a-f]{64}$/;

// A definition hash argument: sha256:<64 hex> (a bare 64-hex digest gets the prefix).
export function hookHash(text: string, what: string): string {
  const t = text.trim().toLowerCase();
  const h = /^[0-9a-f]{64}$/.test(t) ? `sha256:${t}` : t;
  if (!HASH.test(h))
    throw new CliError(`${what} must be a hook definition hash sha256:<64 hex>, got ${JSON.stringify(text)}`);
  return h;
}

const uuidValue = uuidOf('a UUID');
const inventoryGroup = {
  flag: '--group <group>',
  help: 'only endpoints of this group (id or name)',
  group: true,
} as const;
const inventoryEndpoint = { flag: '--endpoint <id>', help: 'only this endpoint', check: uuidValue } as const;

/**
 * Every list route of the API with the CLI command that lists it and that command's filter table, or why the CLI
 * does not list it. Keyed by every list route of the document: a new list route fails the type check here.
 */
export const CLI_LISTS = {
  '/v1/groups': {
    command: 'groups list',
    filters: {
      namePrefix: { flag: '--name-prefix <prefix>', help: 'only groups whose name starts with this' },
    } satisfies FilterTable<'/v1/groups'>,
  },
  '/v1/policies': {
    command: 'policies list',
    filters: {
      groupId: { flag: '--group <group>', help: 'only policies of this group (id or name)', group: true },
      namePrefix: { flag: '--name-prefix <prefix>', help: 'only names starting with this' },
    } satisfies FilterTable<'/v1/policies'>,
  },
  '/v1/policies/{id}/versions': {
    command: 'versions list',
    filters: {} satisfies FilterTable<'/v1/policies/{id}/versions'>,
  },
  '/v1/groups/{groupId}/releases': {
    command: 'releases list',
    filters: {} satisfies FilterTable<'/v1/groups/{groupId}/releases'>,
  },
  '/v1/groups/{groupId}/enrollment-secrets': {
    command: 'enrollment-secrets list',
    filters: {} satisfies FilterTable<'/v1/groups/{groupId}/enrollment-secrets'>,
  },
  '/v1/endpoints': {
    command: 'endpoints list',
    filters: {
      groupId: { flag: '--group <group>', help: 'only this group (id or name)', group: true },
      state: { flag: '--state <state>', help: ENDPOINT_STATES.join(' | '), check: oneOf(ENDPOINT_STATES) },
      platform: { flag: '--platform <platform>', help: 'linux | darwin | win32 …' },
      admission: {
        flag: '--admission <admission>',
        help: `${ADMISSIONS.join(' | ')} (pending: duplicate machine ids to decide)`,
        check: oneOf(ADMISSIONS),
      },
    } satisfies FilterTable<'/v1/endpoints'>,
  },
  '/v1/tokens': {
    command: 'tokens list',
    filters: {
      role: {
        flag: '--role <role>',
        help: `only tokens of this role: ${TOKEN_ROLES.join(' | ')}`,
        check: oneOf(TOKEN_ROLES),
      },
      active: {
        flag: '--active',
        help: 'only live tokens',
        switch: true,
        off: { flag: '--inactive', help: 'only revoked or expired tokens' },
      },
    } satisfies FilterTable<'/v1/tokens'>,
  },
  '/v1/signing-keys': { command: 'signing-keys list', filters: {} satisfies FilterTable<'/v1/signing-keys'> },
  '/v1/hook-runs': { command: 'hook-runs list', filters: HOOK_RUN_FILTERS },
  '/v1/hook-runs/top': {
    command: 'hook-runs top',
    filters: HOOK_RUN_FILTERS satisfies Omit<FilterTable<'/v1/hook-runs/top'>, 'kind'>,
    own: ['kind'],
  },
  '/v1/findings': {
    command: 'hook-runs findings',
    filters: {
      endpointId: { flag: '--endpoint <id>', help: 'endpoint id' },
      groupId: { flag: '--group <group>', help: 'group (id or name)', group: true },
      kind: {
        flag: '--kind <kind>',
        help: FINDING_KINDS.join(' | '),
        check: oneOf(FINDING_KINDS),
      },
      includeResolved: { flag: '--include-resolved', help: 'also resolved findings', switch: true },
    } satisfies FilterTable<'/v1/findings'>,
  },
  '/v1/audit-log': { command: 'audit-log list', filters: AUDIT_FILTERS },
  '/v1/inventory/hooks': {
    command: 'inventory hooks',
    filters: {
      groupId: inventoryGroup,
      layer: { flag: '--layer <layer>', help: LAYERS.join(' | '), check: oneOf(LAYERS) },
      trust: {
        flag: '--trust <status>',
        help: `only hooks with this trust status somewhere: ${TRUST.join(' | ')}`,
        check: oneOf(TRUST),
      },
      program: { flag: '--program <word>', help: "the command's first word, exactly (e.g. curl)" },
      commandContains: {
        flag: '--command-contains <text>',
        help: 'substring of the command text (where the capture mode sends it)',
      },
      plugin: { flag: '--plugin <name>', help: 'only hooks of this plugin' },
      hash: { flag: '--hash <hash>', help: 'only this definition hash (sha256:…)', check: hookHash },
    } satisfies FilterTable<'/v1/inventory/hooks'>,
  },
  '/v1/inventory/plugins': {
    command: 'inventory plugins',
    filters: { groupId: inventoryGroup, endpointId: inventoryEndpoint } satisfies FilterTable<'/v1/inventory/plugins'>,
  },
  '/v1/inventory/changes': {
    command: 'inventory changes',
    filters: {
      endpointId: inventoryEndpoint,
      since: { flag: '--since <iso>', help: 'only changes at or after this time (ISO 8601)', check: isoTime },
    } satisfies FilterTable<'/v1/inventory/changes'>,
  },
  '/v1/inventory/findings': {
    command: 'inventory findings',
    filters: { groupId: inventoryGroup, endpointId: inventoryEndpoint } satisfies FilterTable<'/v1/inventory/findings'>,
  },
  '/v1/inventory/denied-hashes': {
    command: 'inventory denied',
    filters: {} satisfies FilterTable<'/v1/inventory/denied-hashes'>,
  },
  '/v1/me/tokens': {
    notListed: 'personal tokens are the console’s (Settings → CLI tokens); the CLI signs in with one',
  },
  '/v1/sessions': {
    command: 'sessions list',
    filters: {
      active: {
        flag: '--active',
        help: 'only live sessions',
        switch: true,
        off: { flag: '--ended', help: 'only ended sessions (revoked, signed out or expired)' },
      },
      subject: { flag: '--subject <subject>', help: "only this person's sessions (the identity provider's subject)" },
    } satisfies FilterTable<'/v1/sessions'>,
  },
  '/v1/fleet/endpoints': {
    command: 'fleet endpoints',
    filters: {
      q: { flag: '--search <text>', help: 'part of the hostname (case-insensitive), or an endpoint id' },
      groupId: { flag: '--group <groups>', help: 'group(s), ids or names, comma-separated', groups: true },
      state: { flag: '--state <states>', help: `fleet state(s), comma-separated: ${FLEET_STATES.join(', ')}` },
      platform: { flag: '--platform <platforms>', help: 'platform(s), comma-separated (linux, darwin, win32)' },
      agentVersion: { flag: '--agent-version <versions>', help: 'agent version(s), comma-separated' },
      admission: { flag: '--admission <admissions>', help: `admission(s), comma-separated: ${ADMISSIONS.join(', ')}` },
      appliedRevision: { flag: '--applied-revision <n>', help: 'only endpoints at this applied revision' },
      appliedVersion: {
        flag: '--applied-version <n>',
        help: 'only endpoints whose applied release is this policy version number, or `none` (nothing applied)',
      },
      inFleet: {
        flag: '--in-fleet',
        help: 'only live members of their group’s fleet (admitted, not revoked)',
        switch: true,
        off: {
          flag: '--outside-fleet',
          help: 'only endpoints outside the fleet (pending, revoked, rejected, retired)',
        },
      },
      hasFindings: {
        flag: '--has-findings',
        help: 'only endpoints with open findings',
        switch: true,
        off: { flag: '--without-findings', help: 'only endpoints without open findings' },
      },
      seenAfter: { flag: '--seen-after <iso>', help: 'last seen at or after (ISO 8601)', check: isoTime },
      seenBefore: {
        flag: '--seen-before <iso>',
        help: 'last seen before (ISO 8601; never seen counts)',
        check: isoTime,
      },
      sort: { flag: '--sort <column>', help: FLEET_SORTS.join(' | '), check: oneOf(FLEET_SORTS) },
      order: { flag: '--order <order>', help: 'asc | desc', check: oneOf(FLEET_ORDERS) },
    } satisfies FilterTable<'/v1/fleet/endpoints'>,
  },
  '/v1/saved-views': { notListed: 'saved views are the console’s named queries' },
  '/v1/streaming/destinations': {
    command: 'streaming list',
    filters: {} satisfies FilterTable<'/v1/streaming/destinations'>,
  },
  '/v1/alerts': {
    command: 'alerts list',
    filters: {
      state: { flag: '--state <state>', help: ALERT_STATES.join(' | '), check: oneOf(ALERT_STATES) },
    } satisfies FilterTable<'/v1/alerts'>,
  },
  '/v1/alerts/rules': { command: 'alerts rules', filters: {} satisfies FilterTable<'/v1/alerts/rules'> },
} as const satisfies Record<
  ListPath,
  { command: string; filters: object; own?: readonly string[] } | { notListed: string }
>;

/** The hook-run filters (list, stats, top, export share them). */
export const hookRunFilters = HOOK_RUN_FILTERS satisfies FilterTable<'/v1/hook-runs/export'> &
  Omit<FilterTable<'/v1/hook-runs/stats'>, 'bucket'>;
/** The audit-log filters (list and export share them). */
export const auditFilters = AUDIT_FILTERS;
