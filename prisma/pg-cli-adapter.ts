// Driver adapter for the Prisma CLI (migrate) that works offline with Prisma 6.19's JS schema engine.
// Works around two @prisma/adapter-pg 6.19 bugs (see TOOLCHAIN.md):
//  - pg_catalog columns of type `name` (oid 19) and `"char"` (oid 18) are rejected: report them as text;
// Only `migrate deploy` and `migrate diff` are used by this project (no shadow database needed).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

const TEXT_OID = 25;
const NAME_OID = 19;
const CHAR_OID = 18;

type QueryResultLike = { fields?: Array<{ dataTypeID: number }> };

// Rewrites catalog-only column types to text so the adapter can deserialize them.
function patchFields<T>(result: T): T {
  const fields = (result as QueryResultLike | undefined)?.fields;
  if (fields) {
    for (const field of fields) {
      if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

// A pg client whose query results never carry the `name`/`"char"` type ids.
class CatalogSafeClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's overloads cannot be re-declared precisely
  override query(...args: any[]): any {
    const last: unknown = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as (err: unknown, res: unknown) => void;
      args[args.length - 1] = (err: unknown, res: unknown) => callback(err, patchFields(res));
    }
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
    const out = (super.query as (...a: unknown[]) => unknown)(...args);
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      return (out as Promise<unknown>).then(patchFields);
    }
    return out;
  }
}

// Builds the adapter factory the Prisma CLI uses for migrations.
export function createCliAdapter(databaseUrl: string): PrismaPg {
  const url = new URL(databaseUrl);
  const config: pg.PoolConfig = {
    host: url.hostname,
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username || 'postgres'),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: decodeURIComponent(url.pathname.replace(/^\//, '') || 'postgres'),
    Client: CatalogSafeClient,
    max: 4,
  };
  return new PrismaPg(config);
}
