// The filters of the console's lists: each filter form's fields, keyed by the API route's filters (its query
// parameters from the OpenAPI document, minus paging and format), and one table naming every list route of the
// document with what the console offers for it. A filter the API adds fails the type check here until a form has it.
import { type FilterName, type ListPath, type PathsWith, QUERY_ENUMS } from '@hookwarden/admin-client';
import { type HOOK_FILTERS, type HookFilter } from './inventory';

/** How a form offers a filter: enumerated ones as pick lists (`pick`, `bool`, `group`), never as free text. */
export type FilterKind = 'text' | 'pick' | 'group' | 'bool' | 'datetime';

// Compile-time check that a form's field keys are exactly the route's filters (true, or the filters missing).
type Exhaustive<P extends PathsWith<'GET'>, K extends string> = [Exclude<FilterName<P>, K>] extends [never]
  ? true
  : Exclude<FilterName<P>, K>;

/** Every filter of GET /v1/hook-runs, in form order (the export sends the same). */
export const HOOK_RUN_FILTERS = [
  { key: 'from', label: 'From', kind: 'datetime' },
  { key: 'to', label: 'To', kind: 'datetime' },
  { key: 'event', label: 'Event', kind: 'text', hint: 'comma-separated, e.g. PreToolUse' },
  { key: 'decision', label: 'Decision', kind: 'pick', options: ['allow', 'ask', 'deny', 'block'] },
  { key: 'status', label: 'Status', kind: 'pick', options: ['ran', 'skipped', 'failed', 'timed_out'] },
  { key: 'groupId', label: 'Group', kind: 'group' },
  { key: 'endpointId', label: 'Endpoint id', kind: 'text' },
  { key: 'hookKey', label: 'Hook key', kind: 'text' },
  { key: 'hookHash', label: 'Hook hash', kind: 'text' },
  { key: 'toolName', label: 'Tool', kind: 'text' },
  { key: 'toolCommand', label: 'Tool command', kind: 'text', hint: 'part of the command, e.g. rm -rf' },
  { key: 'managed', label: 'Managed', kind: 'bool' },
  { key: 'skipReason', label: 'Skip reason', kind: 'text' },
  { key: 'policyRevision', label: 'Policy revision', kind: 'text' },
  { key: 'policyDigest', label: 'Policy digest', kind: 'text' },
  { key: 'sessionId', label: 'Session id', kind: 'text' },
  { key: 'shadowReleaseId', label: 'Shadow release', kind: 'text', hint: 'runs of a shadow release (observe mode)' },
] as const satisfies ReadonlyArray<{
  key: FilterName<'/v1/hook-runs'>;
  label: string;
  kind: string;
  hint?: string;
  options?: readonly string[];
}>;
export type HookRunFilter = (typeof HOOK_RUN_FILTERS)[number]['key'];
const hookRunsComplete: Exhaustive<'/v1/hook-runs', HookRunFilter> = true;

/** Every audit action and target type the API filters by (generated from the document). */
export const AUDIT_ACTIONS = QUERY_ENUMS['/v1/audit-log'].action;
export const AUDIT_TARGET_TYPES = QUERY_ENUMS['/v1/audit-log'].targetType;

/** Every filter of GET /v1/audit-log, in form order; enumerated ones with their values. */
export const AUDIT_FILTERS = [
  { key: 'actionPrefix', label: 'Action prefix', kind: 'text', placeholder: 'policy.' },
  { key: 'action', label: 'Action', kind: 'pick', options: AUDIT_ACTIONS },
  { key: 'actor', label: 'Actor (id or name)', kind: 'text' },
  { key: 'targetType', label: 'Target type', kind: 'pick', options: AUDIT_TARGET_TYPES },
  { key: 'targetId', label: 'Target id', kind: 'text' },
  { key: 'from', label: 'From (ISO time)', kind: 'text', placeholder: '2026-01-01T00:00:00Z' },
  { key: 'to', label: 'To (ISO time)', kind: 'text' },
] as const satisfies ReadonlyArray<{
  key: FilterName<'/v1/audit-log'>;
  label: string;
  kind: FilterKind;
  placeholder?: string;
  options?: readonly string[];
}>;
export type AuditFilter = (typeof AUDIT_FILTERS)[number]['key'];
const auditComplete: Exhaustive<'/v1/audit-log', AuditFilter> = true;

/** Every filter of GET /v1/fleet/endpoints (the Endpoints view's URL parameters; sort and order are its columns). */
export const FLEET_FILTERS = [
  'q',
  'groupId',
  'state',
  'platform',
  'agentVersion',
  'admission',
  'appliedRevision',
  'appliedVersion',
  'inFleet',
  'hasFindings',
  'seenAfter',
  'seenBefore',
  'sort',
  'order',
] as const satisfies ReadonlyArray<FilterName<'/v1/fleet/endpoints'>>;
export type FleetFilter = (typeof FLEET_FILTERS)[number];
const fleetComplete: Exhaustive<'/v1/fleet/endpoints', FleetFilter> = true;
/** The Endpoints view's kind of field per filter (state, platform and admission take comma lists of picks). */
export const FLEET_FILTER_KINDS = {
  q: 'text',
  groupId: 'group',
  state: 'pick',
  platform: 'pick',
  agentVersion: 'text',
  admission: 'pick',
  appliedRevision: 'text',
  appliedVersion: 'text',
  inFleet: 'bool',
  hasFindings: 'bool',
  seenAfter: 'datetime',
  seenBefore: 'datetime',
  sort: 'pick',
  order: 'pick',
} as const satisfies Record<FleetFilter, FilterKind>;

/** The filters of the inventory's Changes tab. */
export const CHANGE_FILTERS = ['endpointId', 'since'] as const;
const changesComplete: Exhaustive<'/v1/inventory/changes', (typeof CHANGE_FILTERS)[number]> = true;
const hooksComplete: Exhaustive<'/v1/inventory/hooks', (typeof HOOK_FILTERS)[number]> = true;
/** The inventory hooks form's kind of field per filter. */
export const HOOK_FILTER_KINDS = {
  groupId: 'group',
  layer: 'pick',
  trust: 'pick',
  program: 'text',
  commandContains: 'text',
  plugin: 'text',
  hash: 'text',
} as const satisfies Record<HookFilter, FilterKind>;

/** The filters of the inventory's Plugins and Findings tabs (the same two). */
export const INVENTORY_SCOPE_FILTERS = ['groupId', 'endpointId'] as const;
const pluginsComplete: Exhaustive<'/v1/inventory/plugins', (typeof INVENTORY_SCOPE_FILTERS)[number]> = true;
const invFindingsComplete: Exhaustive<'/v1/inventory/findings', (typeof INVENTORY_SCOPE_FILTERS)[number]> = true;

/** The states of an alert (the streaming page's filter). */
export const ALERT_STATES = QUERY_ENUMS['/v1/alerts'].state;

/** Every kind of integrity finding. */
export const FINDING_KINDS = QUERY_ENUMS['/v1/findings'].kind;
/** The filters of the Overview's findings panel. */
export const FINDING_FILTERS = {
  kind: 'pick',
  groupId: 'group',
  endpointId: 'text',
  includeResolved: 'bool',
} as const satisfies Record<FilterName<'/v1/findings'>, FilterKind>;

/** The two rankings of GET /v1/hook-runs/top. */
export const TOP_KINDS = QUERY_ENUMS['/v1/hook-runs/top'].kind;

/** The filters of the groups page and of the policies page. */
export const GROUP_FILTERS = { namePrefix: 'text' } as const satisfies Record<FilterName<'/v1/groups'>, FilterKind>;
export const POLICY_FILTERS = { namePrefix: 'text', groupId: 'group' } as const satisfies Record<
  FilterName<'/v1/policies'>,
  FilterKind
>;

/** Every endpoint state and admission the endpoints list filters by. */
export const ENDPOINT_STATES = QUERY_ENUMS['/v1/endpoints'].state;
export const ENDPOINT_ADMISSIONS = QUERY_ENUMS['/v1/endpoints'].admission;
/** The platforms an agent reports (the API takes any string; these are the ones there are). */
export const PLATFORMS = ['linux', 'darwin', 'win32'] as const;

/** The endpoints list's filter fields on a group's page. */
export const ENDPOINT_FILTERS = { state: 'pick', platform: 'pick', admission: 'pick' } as const satisfies Record<
  Exclude<FilterName<'/v1/endpoints'>, 'groupId'>,
  FilterKind
>;

// A form table's kinds by filter name.
const kindsOf = (table: ReadonlyArray<{ key: string; kind: FilterKind }>): Record<string, FilterKind> =>
  Object.fromEntries(table.map((f) => [f.key, f.kind]));

/**
 * What the console offers for one list route: its page, each filter the page's form has with its kind of field,
 * and the filters the page fixes itself (`context`: a group's endpoints, a policy's versions) with where they come
 * from; or why the console does not list the route at all.
 */
type Offer =
  | { page: string; filters: Readonly<Record<string, FilterKind>>; context?: Readonly<Record<string, string>> }
  | { notListed: string };

/** Every list route of the API document (a new one fails the type check here) with what the console offers. */
export const CONSOLE_LISTS = {
  '/v1/hook-runs': { page: '/hook-runs', filters: kindsOf(HOOK_RUN_FILTERS) },
  '/v1/hook-runs/top': {
    page: '/hook-runs',
    filters: { ...kindsOf(HOOK_RUN_FILTERS), kind: 'pick' },
  },
  '/v1/audit-log': { page: '/audit', filters: kindsOf(AUDIT_FILTERS) },
  '/v1/inventory/hooks': { page: '/inventory', filters: HOOK_FILTER_KINDS },
  '/v1/inventory/changes': { page: '/inventory/changes', filters: { endpointId: 'text', since: 'datetime' } },
  '/v1/inventory/plugins': { page: '/inventory/plugins', filters: { groupId: 'group', endpointId: 'text' } },
  '/v1/inventory/findings': { page: '/inventory/findings', filters: { groupId: 'group', endpointId: 'text' } },
  '/v1/findings': { page: '/', filters: FINDING_FILTERS },
  '/v1/endpoints': {
    page: '/groups/:id',
    filters: ENDPOINT_FILTERS,
    context: { groupId: 'the group whose page it is' },
  },
  '/v1/groups': { page: '/groups', filters: GROUP_FILTERS },
  '/v1/policies': { page: '/policies', filters: POLICY_FILTERS },
  '/v1/policies/{id}/versions': { page: '/policies/:id', filters: {} },
  '/v1/groups/{groupId}/releases': { page: '/groups/:id', filters: {} },
  '/v1/groups/{groupId}/enrollment-secrets': { page: '/groups/:id', filters: {} },
  '/v1/signing-keys': { page: '/audit', filters: {} },
  '/v1/inventory/denied-hashes': { page: '/inventory/denied', filters: {} },
  '/v1/me/tokens': { page: '/settings/cli-tokens', filters: {} },
  '/v1/fleet/endpoints': { page: '/endpoints', filters: FLEET_FILTER_KINDS },
  '/v1/saved-views': { page: '/endpoints', filters: { kind: 'pick' } },
  '/v1/tokens': { notListed: 'people’s API tokens are managed with the CLI (hookwarden tokens)' },
  '/v1/sessions': {
    notListed:
      'SSO sessions are listed and revoked with the CLI (hookwarden sessions); a person signs out from the console',
  },
  '/v1/streaming/destinations': { page: '/streaming', filters: {} },
  '/v1/alerts': { page: '/streaming', filters: { state: 'pick' } },
  '/v1/alerts/rules': { notListed: 'alert rules are managed with the API and the CLI (hookwarden alerts rules)' },
} as const satisfies Record<ListPath, Offer>;

// The compile-time checks above, kept referenced.
export const FILTER_FORMS_COMPLETE = [
  hookRunsComplete,
  auditComplete,
  changesComplete,
  hooksComplete,
  pluginsComplete,
  invFindingsComplete,
  fleetComplete,
] as const;
