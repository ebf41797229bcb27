// The generated enumerations (src/enums.ts) are the committed document's: regenerated from openapi.json they are the
// same text, every enumerated query parameter of a list route is there with the document's values, and the values
// agree with the generated types.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { GENERATED, openApiEnums } from '../scripts/openapi-types.mjs';
import { listRoutes, QUERY_ENUMS, type QueryParams, type SCHEMA_ENUMS, type Schemas } from '@hookwarden/admin-client';

const ROOT = path.resolve(__dirname, '../../..');
const doc = JSON.parse(readFileSync(path.join(ROOT, GENERATED.document), 'utf8')) as Record<string, unknown>;

describe('generated enumerations', () => {
  it('src/enums.ts is what the committed document generates', () => {
    const message = `${GENERATED.enums} is stale: run npm run build && npm run api-types`;
    expect(openApiEnums(doc), message).toBe(readFileSync(path.join(ROOT, GENERATED.enums), 'utf8'));
  });

  it('every enumerated filter of a list route has its values', () => {
    const queryEnums = QUERY_ENUMS as Record<string, Record<string, readonly string[]>>;
    let seen = 0;
    for (const route of listRoutes(doc)) {
      for (const f of route.filters) {
        const values = (f.schema as { enum?: string[] }).enum;
        if (!values) continue;
        expect(queryEnums[route.path]?.[f.name], `${route.path} ${f.name}`).toEqual(values);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('the values have the generated types', () => {
    expectTypeOf<(typeof QUERY_ENUMS)['/v1/audit-log']['action'][number]>().toEqualTypeOf<
      NonNullable<QueryParams<'GET', '/v1/audit-log'>['action']>
    >();
    expectTypeOf<(typeof SCHEMA_ENUMS)['FleetPageDto.items.state'][number]>().toEqualTypeOf<
      Schemas['FleetPageDto']['items'][number]['state']
    >();
    expectTypeOf<(typeof SCHEMA_ENUMS)['CreateTokenDto.role'][number]>().toEqualTypeOf<
      Schemas['CreateTokenDto']['role']
    >();
  });
});
