// Every filter the API has, offered by the console: the list routes and their filters are derived from the OpenAPI
// document (query parameters minus paging and format); the console's table must name every list route, each
// filter form must have exactly its route's filters, and a list shown without a full form must say why.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRoutes } from '@hookwarden/admin-client';
import { AUDIT_FILTERS, CHANGE_FILTERS, CONSOLE_LISTS, HOOK_RUN_FILTERS } from '../src/filters';
import { HOOK_FILTERS } from '../src/inventory';

const doc: unknown = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../libs/admin-client/openapi.json'), 'utf8'),
);
const LISTS = listRoutes(doc);
type Offer = { page: string; filters: readonly string[]; unfiltered?: string } | { notListed: string };
const offers = CONSOLE_LISTS as Record<string, Offer>;

describe('console list filters derived from the OpenAPI document', () => {
  it('the document has the filters this test expects to derive', () => {
    const runs = LISTS.find((l) => l.path === '/v1/hook-runs');
    expect(runs?.filters.map((f) => f.name)).toContain('toolCommand');
  });

  it('names every list route of the document, and only those', () => {
    expect(Object.keys(offers).sort()).toEqual(LISTS.map((l) => l.path).sort());
  });

  for (const { path: route, filters } of LISTS) {
    const names = filters.map((f) => f.name).sort();
    it(`${route}: the console offers ${names.join(', ') || 'no filter'}`, () => {
      const o = offers[route]!;
      if ('notListed' in o) return expect(o.notListed).not.toBe('');
      if (o.unfiltered !== undefined) {
        expect(o.unfiltered, route).not.toBe('');
        for (const f of o.filters) expect(names, `${route} ${f}`).toContain(f);
      } else expect([...o.filters].sort(), route).toEqual(names);
    });
  }

  it('the filter forms are the tables the pages render', () => {
    expect(CONSOLE_LISTS['/v1/hook-runs'].filters).toEqual(HOOK_RUN_FILTERS.map((f) => f.key));
    expect(CONSOLE_LISTS['/v1/audit-log'].filters).toEqual(AUDIT_FILTERS.map((f) => f.key));
    expect(CONSOLE_LISTS['/v1/inventory/hooks'].filters).toBe(HOOK_FILTERS);
    expect(CONSOLE_LISTS['/v1/inventory/changes'].filters).toBe(CHANGE_FILTERS);
  });
});
