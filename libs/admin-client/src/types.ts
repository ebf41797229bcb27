// Types derived from the generated document (schema.ts): every operation by method and path, its path and query
// parameters, its JSON request body and its success answer. Nothing here is written by hand per route.
import type { components, paths } from './schema';

/** The request methods the admin API uses. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The document's schemas by name (`Schemas['GroupViewDto']`). */
export type Schemas = components['schemas'];

/** Every documented path template. */
export type ApiPath = keyof paths;

/** The operation of a method on a path (never when the path has no such method). */
export type Operation<M extends Method, P extends ApiPath> = NonNullable<paths[P][Lowercase<M>]>;

/** The paths that answer a method. */
export type PathsWith<M extends Method> = {
  [P in ApiPath]: [Operation<M, P>] extends [never] ? never : P;
}[ApiPath];

type ParametersOf<O> = O extends { parameters: infer X } ? X : never;

/** The path parameters of an operation (never when it has none). */
export type PathParams<M extends Method, P extends ApiPath> =
  ParametersOf<Operation<M, P>> extends { path?: infer X } ? NonNullable<X> : never;

/** The query parameters of an operation (never when it has none). */
export type QueryParams<M extends Method, P extends ApiPath> =
  ParametersOf<Operation<M, P>> extends { query?: infer X } ? NonNullable<X> : never;

/** The names of an operation's query parameters. */
export type QueryName<M extends Method, P extends ApiPath> = keyof QueryParams<M, P> & string;

/** The JSON request body of an operation (never when it takes none). */
export type RequestBody<M extends Method, P extends ApiPath> =
  Operation<M, P> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

type SuccessStatus = 200 | 201 | 202 | 204;
type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type JsonContent<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;

/** The JSON answer of an operation's success statuses (a union when 200 and 201 differ). */
export type ResponseBody<M extends Method, P extends ApiPath> = {
  [S in keyof ResponsesOf<Operation<M, P>> & SuccessStatus]: JsonContent<ResponsesOf<Operation<M, P>>[S]>;
}[keyof ResponsesOf<Operation<M, P>> & SuccessStatus];

/** The items of a paginated list answer (`{ items, nextCursor }`). */
export type ItemOf<M extends Method, P extends ApiPath> =
  ResponseBody<M, P> extends { items: Array<infer I> } ? I : never;

/** The paths whose GET answers a cursor-paginated page (`{ items, nextCursor }`, `cursor` in the query). */
export type PagedPath = {
  [P in PathsWith<'GET'>]: ResponseBody<'GET', P> extends { items: unknown[]; nextCursor: unknown }
    ? 'cursor' extends QueryName<'GET', P>
      ? P
      : never
    : never;
}[PathsWith<'GET'>];

/** The paths whose GET answers a list (`{ items: [...] }`, paginated or not). */
export type ListPath = {
  [P in PathsWith<'GET'>]: [ResponseBody<'GET', P>] extends [never]
    ? never
    : ResponseBody<'GET', P> extends { items: unknown[] }
      ? P
      : never;
}[PathsWith<'GET'>];

/** Query parameters of a list that are not filters: paging and the output format. */
export const NOT_FILTERS = ['limit', 'cursor', 'format'] as const;

/** The filters of a GET route: its query parameters except paging and the output format. */
export type FilterName<P extends PathsWith<'GET'>> = Exclude<QueryName<'GET', P>, (typeof NOT_FILTERS)[number]>;

/** Per-request options of the transport (not part of the operation). */
export interface CallOptions {
  headers?: Record<string, string>;
  /** Replaces the overall deadline (e.g. a stream's idle timeout). */
  signal?: AbortSignal;
  /** Per-request deadline in milliseconds (headers and body). */
  timeoutMs?: number;
  /** Largest answer read into memory, in bytes. */
  maxBytes?: number;
}

type ParamsInit<M extends Method, P extends ApiPath> = ([PathParams<M, P>] extends [never]
  ? { path?: undefined }
  : { path: PathParams<M, P> }) &
  ([QueryParams<M, P>] extends [never] ? { query?: undefined } : { query?: QueryParams<M, P> });

type BodyInit<M extends Method, P extends ApiPath> = [RequestBody<M, P>] extends [never]
  ? { body?: undefined }
  : Operation<M, P> extends { requestBody: unknown }
    ? { body: RequestBody<M, P> }
    : { body?: RequestBody<M, P> };

/** What one call passes: `params.path` (required when the path has parameters), `params.query`, `body`. */
export type RequestInit<M extends Method, P extends ApiPath> = ([PathParams<M, P>] extends [never]
  ? { params?: ParamsInit<M, P> }
  : { params: ParamsInit<M, P> }) &
  BodyInit<M, P> &
  CallOptions;

/** The init argument, optional when nothing in it is required. */
export type InitArg<M extends Method, P extends ApiPath> =
  Record<never, never> extends RequestInit<M, P> ? [init?: RequestInit<M, P>] : [init: RequestInit<M, P>];

/** The same call flattened (`path`, `query` beside `body`), as the CLI writes it. */
export type FlatInit<M extends Method, P extends ApiPath> = ParamsInit<M, P> & BodyInit<M, P> & CallOptions;

/** The flat init argument, optional when nothing in it is required. */
export type FlatInitArg<M extends Method, P extends ApiPath> =
  Record<never, never> extends FlatInit<M, P> ? [init?: FlatInit<M, P>] : [init: FlatInit<M, P>];

/** What the transport sees of a call once typing is done. */
export interface LooseInit extends CallOptions {
  params?: { path?: object; query?: object };
  body?: unknown;
}
