// The filters of the console's lists: each filter form's fields, keyed by the API route's filters (its query
// parameters from the OpenAPI document, minus paging and format), and one table naming every list route of the
// document with what the console offers for it. A filter the API adds fails the type check here until a form has it.
import type { FilterName, ListPath, PathsWith } from '@hookwarden/admin-client';
import { HOOK_FILTERS } from './inventory';

// Compile-time check that a form's field keys are exactly the route's filters (true, or the filters missing).
type Exhaustive<P extends PathsWith<'GET'>, K extends string> = [Exclude<FilterName<P>, K>] extends [never]
  ? true
  : Exclude<FilterName<P>, K>;

/** Every filter of GET /v1/hook-runs, in form order (the export sends the same). */
export const HOOK_RUN_FILTERS = [
  { key: 'from', label: 'From', kind: 'datetime' },
  { key: 'to', label: 'To', kind: 'datetime' },
  { key: 'event', label: 'Event', kind: 'text', hint: 'comma-separated, e.g. PreToolUse' },
  { key: 'decision', label: 'Decision', kind: 'text', hint: 'e.g. deny,block' },
  { key: 'status', label: 'Status', kind: 'text', hint: 'ran, skipped, failed, timed_out' },
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
] as const satisfies ReadonlyArray<{ key: FilterName<'/v1/hook-runs'>; label: string; kind: string; hint?: string }>;
export type HookRunFilter = (typeof HOOK_RUN_FILTERS)[number]['key'];
const hookRunsComplete: Exhaustive<'/v1/hook-runs', HookRunFilter> = true;

/** Every filter of GET /v1/audit-log, in form order. */
export const AUDIT_FILTERS = [
  { key: 'actionPrefix', label: 'Action prefix', placeholder: 'policy.' },
  { key: 'action', label: 'Action', placeholder: 'policy.version.create' },
  { key: 'actor', label: 'Actor (id or name)' },
  { key: 'targetType', label: 'Target type' },
  { key: 'targetId', label: 'Target id' },
  { key: 'from', label: 'From (ISO time)', placeholder: '2026-01-01T00:00:00Z' },
  { key: 'to', label: 'To (ISO time)' },
] as const satisfies ReadonlyArray<{ key: FilterName<'/v1/audit-log'>; label: string; placeholder?: string }>;
export type AuditFilter = (typeof AUDIT_FILTERS)[number]['key'];
const auditComplete: Exhaustive<'/v1/audit-log', AuditFilter> = true;

/** The filters of the inventory's Changes tab. */
export const CHANGE_FILTERS = ['endpointId', 'since'] as const;
const changesComplete: Exhaustive<'/v1/inventory/changes', (typeof CHANGE_FILTERS)[number]> = true;
const hooksComplete: Exhaustive<'/v1/inventory/hooks', (typeof HOOK_FILTERS)[number]> = true;

/** What the console offers for one list route: the page and the filters its form has, or why it has no form. */
type Offer =
  | { page: string; filters: readonly string[] }
  | { page: string; unfiltered: string; filters: readonly string[] }
  | { notListed: string };

/**
 * Every list route of the API document (a new one fails the type check here) with the console page listing it and
 * the filters its form offers. `unfiltered` names the lists shown whole or by the page's own context (a group's
 * endpoints, an endpoint's runs) rather than through a filter form.
 */
export const CONSOLE_LISTS = {
  '/v1/hook-runs': { page: '/hook-runs', filters: HOOK_RUN_FILTERS.map((f) => f.key) },
  '/v1/audit-log': { page: '/audit', filters: AUDIT_FILTERS.map((f) => f.key) },
  '/v1/inventory/hooks': { page: '/inventory', filters: HOOK_FILTERS },
  '/v1/inventory/changes': { page: '/inventory/changes', filters: CHANGE_FILTERS },
  '/v1/inventory/plugins': {
    page: '/inventory/plugins',
    filters: ['groupId'],
    unfiltered: 'by group only; an endpoint’s plugins are on its page',
  },
  '/v1/inventory/findings': {
    page: '/inventory/findings',
    filters: ['groupId'],
    unfiltered: 'by group only; an endpoint’s findings are on its page',
  },
  '/v1/endpoints': {
    page: '/groups/:id',
    filters: ['groupId', 'state', 'platform', 'admission'],
  },
  '/v1/groups': { page: '/groups', filters: [], unfiltered: 'every group is shown (at most 200)' },
  '/v1/policies': { page: '/policies', filters: [], unfiltered: 'every policy is shown, with its group' },
  '/v1/policies/{id}/versions': { page: '/policies/:id', filters: [] },
  '/v1/groups/{groupId}/releases': { page: '/groups/:id', filters: [] },
  '/v1/groups/{groupId}/enrollment-secrets': { page: '/groups/:id', filters: [] },
  '/v1/signing-keys': { page: '/audit', filters: [] },
  '/v1/hook-runs/top': { page: '/', filters: ['kind', 'from'], unfiltered: 'the Overview’s fixed top-5 panels' },
  '/v1/findings': { page: '/', filters: [], unfiltered: 'the Overview’s newest findings and each endpoint’s own' },
  '/v1/inventory/denied-hashes': { page: '/inventory/denied', filters: [] },
  '/v1/me/tokens': { page: '/settings/cli-tokens', filters: [] },
  '/v1/tokens': { notListed: 'people’s API tokens are managed with the CLI (hookwarden tokens)' },
  '/v1/sessions': { notListed: 'SSO sessions are listed by the API only; a person signs out from the console' },
  '/v1/streaming/destinations': { page: '/streaming', filters: [], unfiltered: 'every destination is shown' },
  '/v1/alerts': { page: '/streaming', filters: [], unfiltered: 'the newest 100 alerts, firing first' },
  '/v1/alerts/rules': { notListed: 'alert rules are managed with the API and the CLI (hookwarden alerts rules)' },
} as const satisfies Record<ListPath, Offer>;

// The compile-time checks above, kept referenced.
export const FILTER_FORMS_COMPLETE = [hookRunsComplete, auditComplete, changesComplete, hooksComplete] as const;
