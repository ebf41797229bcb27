// Every filter the API has, offered by the console: the list routes and their filters are derived from the OpenAPI
// document (query parameters minus paging and format); the console's table must name every list route, each page
// must offer exactly its route's filters (a form field, or fixed by the page's context), enumerated filters as pick
// lists whose values are exactly the document's, and the filter forms are the tables the pages render.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRoutes } from '@hookwarden/admin-client';
import {
  AUDIT_FILTERS,
  CONSOLE_LISTS,
  ENDPOINT_ADMISSIONS,
  ENDPOINT_STATES,
  FINDING_KINDS,
  HOOK_FILTER_KINDS,
  HOOK_RUN_FILTERS,
  TOP_KINDS,
} from '../src/filters';
import { HOOK_FILTERS, INVENTORY_LAYERS, INVENTORY_TRUST } from '../src/inventory';

type Json = Record<string, unknown>;
const doc: unknown = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../libs/admin-client/openapi.json'), 'utf8'),
);
const LISTS = listRoutes(doc);
type Offer =
  { page: string; filters: Record<string, string>; context?: Record<string, string> } | { notListed: string };
const offers = CONSOLE_LISTS as unknown as Record<string, Offer>;
const enumOf = (route: string, name: string): unknown[] | undefined => {
  const f = LISTS.find((l) => l.path === route)?.filters.find((x) => x.name === name);
  return f?.schema?.enum as unknown[] | undefined;
};

describe('console list filters derived from the OpenAPI document', () => {
  it('the document has the filters this test expects to derive', () => {
    const runs = LISTS.find((l) => l.path === '/v1/hook-runs');
    expect(runs?.filters.map((f) => f.name)).toContain('toolCommand');
    expect(enumOf('/v1/audit-log', 'action')).toContain('policy.version.create');
  });

  it('names every list route of the document, and only those', () => {
    expect(Object.keys(offers).sort()).toEqual(LISTS.map((l) => l.path).sort());
  });

  for (const { path: route, filters } of LISTS) {
    const names = filters.map((f) => f.name).sort();
    it(`${route}: the console offers ${names.join(', ') || 'no filter'}`, () => {
      const o = offers[route]!;
      if ('notListed' in o) return expect(o.notListed).not.toBe('');
      expect([...Object.keys(o.filters), ...Object.keys(o.context ?? {})].sort(), route).toEqual(names);
      for (const f of filters) {
        const kind = o.filters[f.name];
        if (kind === undefined) continue; // fixed by the page
        const values = (f.schema as Json).enum as unknown[] | undefined;
        if (values && values.join() === 'true,false') expect(kind, `${route} ${f.name}`).toBe('bool');
        else if (values) expect(kind, `${route} ${f.name}: enumerated, so a pick list`).toBe('pick');
        if (f.name === 'groupId') expect(kind, `${route} groupId`).toBe('group');
      }
    });
  }

  it('each pick list offers exactly the values the document enumerates', () => {
    const picks: Array<[string, string, readonly string[]]> = [
      ['/v1/endpoints', 'state', ENDPOINT_STATES],
      ['/v1/endpoints', 'admission', ENDPOINT_ADMISSIONS],
      ['/v1/findings', 'kind', FINDING_KINDS],
      ['/v1/hook-runs/top', 'kind', TOP_KINDS],
      ['/v1/inventory/hooks', 'layer', INVENTORY_LAYERS],
      ['/v1/inventory/hooks', 'trust', INVENTORY_TRUST],
    ];
    for (const f of AUDIT_FILTERS) if ('options' in f) picks.push(['/v1/audit-log', f.key, f.options]);
    expect(picks.map(([r, n]) => `${r} ${n}`)).toContain('/v1/audit-log targetType');
    for (const [route, name, values] of picks)
      expect([...values].sort(), `${route} ${name}`).toEqual([...(enumOf(route, name) as string[])].sort());
  });

  it('the filter forms are the tables the pages render', () => {
    expect(Object.keys(CONSOLE_LISTS['/v1/hook-runs'].filters)).toEqual(HOOK_RUN_FILTERS.map((f) => f.key));
    expect(Object.keys(CONSOLE_LISTS['/v1/audit-log'].filters)).toEqual(AUDIT_FILTERS.map((f) => f.key));
    expect(Object.keys(CONSOLE_LISTS['/v1/inventory/hooks'].filters)).toEqual([...HOOK_FILTERS]);
    expect(CONSOLE_LISTS['/v1/inventory/hooks'].filters).toBe(HOOK_FILTER_KINDS);
  });
});
