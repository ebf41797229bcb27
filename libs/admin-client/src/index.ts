// Public API of @hookwarden/admin-client: the typed client, its errors, and the types derived from the document.
export {
  AdminClient,
  backoffMs,
  fillPath,
  queryString,
  readLimited,
  type AdminClientOptions,
  type FetchFunction,
  type FetchRequest,
  type FetchResponse,
  type Page,
  type PageInit,
} from './client';
export {
  AdminApiError,
  AdminBodyError,
  AdminNetworkError,
  diagnosticsOf,
  networkReason,
  type Diagnostic,
} from './errors';
export { QUERY_ENUMS, SCHEMA_ENUMS } from './enums';
export { listRoutes, type ListRoute } from './list-routes';
export { NOT_FILTERS } from './types';
export type {
  ApiPath,
  FilterName,
  FlatInit,
  FlatInitArg,
  ListPath,
  CallOptions,
  InitArg,
  ItemOf,
  Method,
  Operation,
  PagedPath,
  PathParams,
  PathsWith,
  QueryName,
  QueryParams,
  RequestBody,
  RequestInit,
  ResponseBody,
  Schemas,
} from './types';
export type { components, operations, paths } from './schema';
