// Maps database errors that a request can cause (unique races, missing rows, bad references, bad values) to API
// errors, so they answer 4xx instead of 500. Anything else stays unmapped (a logged 500).
import { ApiError } from './api-error';

/** Prisma's known request errors (duck-typed: the class differs between client builds). */
interface PrismaKnownError {
  name: 'PrismaClientKnownRequestError';
  code: string;
  meta?: Record<string, unknown>;
}

function isPrismaKnown(err: unknown): err is PrismaKnownError {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'PrismaClientKnownRequestError' &&
    typeof (err as { code?: unknown }).code === 'string'
  );
}

/** A PostgreSQL error from node-postgres (SQLSTATE in `code`). */
function pgCode(err: unknown): string | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; severity?: unknown; routine?: unknown };
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && (e.severity !== undefined || e.routine)
    ? e.code
    : null;
}

// The fields of a unique constraint Prisma names (meta.target, or the adapter's constraint fields).
function uniqueFields(meta: Record<string, unknown> | undefined): string[] {
  const target = meta?.target;
  if (Array.isArray(target)) return target.map(String);
  if (typeof target === 'string') return [target];
  const cause = meta?.driverAdapterError as { cause?: { constraint?: { fields?: unknown } } } | undefined;
  const fields = cause?.cause?.constraint?.fields;
  return Array.isArray(fields) ? fields.map(String) : [];
}

// The API error for a database error a request caused, or null when it is not one.
export function mapDatabaseError(err: unknown): ApiError | null {
  if (isPrismaKnown(err)) {
    switch (err.code) {
      case 'P2002': {
        const fields = uniqueFields(err.meta);
        return new ApiError(
          'conflict',
          fields.length
            ? `A record with the same ${fields.join(', ')} already exists`
            : 'A record with the same unique value already exists',
          fields.map((f) => ({ path: `$.${f}`, message: 'already exists', code: 'unique' })),
        );
      }
      case 'P2025':
      case 'P2001':
      case 'P2015':
      case 'P2018':
        return new ApiError('not_found', 'The record does not exist (or no longer exists)');
      case 'P2003':
      case 'P2014':
        return new ApiError('validation_failed', 'The request references a record that does not exist', [
          { path: '$', message: 'references a missing record', code: 'foreign_key' },
        ]);
      case 'P2000':
        return new ApiError('validation_failed', 'A value is too long for its field', [
          { path: '$', message: 'value too long', code: 'too_long' },
        ]);
      case 'P2034':
        return new ApiError('conflict', 'A concurrent change conflicted with this one; retry');
      case 'P2024': // timed out waiting for a pooled connection
      case 'P2028': // a transaction could not start or finish in time (overload)
        return unreachable();
      case 'P2010': {
        // A raw query: the SQLSTATE is in meta.code, or (driver adapter) in the adapter error it carries.
        const code = (err.meta?.code as string | undefined) ?? adapterSqlState(err.meta?.driverAdapterError) ?? null;
        return code ? fromSqlState(code) : null;
      }
      default:
        // P1xxx: the database could not be reached, timed out or closed the connection.
        return err.code.startsWith('P1') ? unreachable() : null;
    }
  }
  if (isAdapterError(err)) return fromAdapterError(err.cause);
  const code = pgCode(err);
  if (code) return fromSqlState(code);
  return isConnectionError(err) ? unreachable() : null;
}

/** The error Prisma's pg driver adapter throws from model queries and transactions (its `cause` says what failed). */
interface AdapterError {
  name: 'DriverAdapterError';
  cause: { kind?: unknown; code?: unknown; originalCode?: unknown };
}

function isAdapterError(err: unknown): err is AdapterError {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'DriverAdapterError' &&
    typeof (err as { cause?: unknown }).cause === 'object' &&
    (err as { cause?: unknown }).cause !== null
  );
}

/** Adapter error kinds that mean the database could not be reached or dropped the connection. */
const ADAPTER_UNREACHABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

// The SQLSTATE an adapter error (or its serialized form in a Prisma error's meta) carries, or null.
function adapterSqlState(value: unknown): string | null {
  const cause = isAdapterError(value) ? value.cause : (value as { cause?: AdapterError['cause'] } | null)?.cause;
  if (typeof cause !== 'object' || cause === null) return null;
  const code = typeof cause.code === 'string' ? cause.code : cause.originalCode;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

// An adapter error as an API error: connection failures are 503, PostgreSQL errors go by their SQLSTATE.
function fromAdapterError(cause: AdapterError['cause']): ApiError | null {
  if (typeof cause.kind === 'string' && ADAPTER_UNREACHABLE.has(cause.kind)) return unreachable();
  const code = adapterSqlState({ cause });
  return code ? fromSqlState(code) : null;
}

// The 503 for a database that cannot be reached right now.
function unreachable(): ApiError {
  return new ApiError('unavailable', 'The database is unreachable or overloaded; retry later', undefined, {
    'retry-after': '5',
  });
}

/** Socket-level failures reaching PostgreSQL (node-postgres rethrows them as they are). */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

// True for a failure to reach the database (as opposed to an error the database answered).
function isConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && CONNECTION_ERRORS.has(e.code)) return true;
  return (
    typeof e.message === 'string' &&
    // node-postgres: the server went away, the pool could not connect in time, or a query was sent on a client whose
    // connection already failed or was closed (a transaction cut by a failover).
    /Connection terminated|timeout exceeded when trying to connect|is not queryable/.test(e.message)
  );
}

// PostgreSQL SQLSTATEs a request's values can cause.
function fromSqlState(code: string): ApiError | null {
  if (code === '23505') return new ApiError('conflict', 'A record with the same unique value already exists');
  if (code === '23503') {
    return new ApiError('validation_failed', 'The request references a record that does not exist', [
      { path: '$', message: 'references a missing record', code: 'foreign_key' },
    ]);
  }
  if (code === '40001' || code === '40P01') {
    return new ApiError('conflict', 'A concurrent change conflicted with this one; retry');
  }
  // Class 22: data exceptions (a value PostgreSQL cannot take: bad text encoding, out-of-range time or number).
  if (code.startsWith('22')) {
    return new ApiError('validation_failed', 'A value in the request is out of range or malformed', [
      { path: '$', message: `rejected by the database (SQLSTATE ${code})`, code: 'invalid_value' },
    ]);
  }
  // 25006: a write reached a server that is read-only now (a primary demoted during a failover, before the load
  // balancer moved): retry on the new primary.
  if (code === '25006') {
    return new ApiError('unavailable', 'The database is read-only during a failover; retry later', undefined, {
      'retry-after': '5',
    });
  }
  if (code === '57014' || code === '53300' || code.startsWith('57P') || code.startsWith('08')) {
    return new ApiError('unavailable', 'The database is busy; retry later', undefined, { 'retry-after': '5' });
  }
  return null;
}
