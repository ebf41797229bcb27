// Queries several pages share, defined once (key from the factory, the same request): spread into useQuery.
import { queryOptions } from '@tanstack/react-query';
import { api } from './api/client';
import { queryKeys } from './query-keys';

/** Every group (at most 200), for group pick lists and the groups page. */
export const groupsQuery = queryOptions({
  queryKey: queryKeys.groups.list({ limit: 200 }),
  queryFn: () => api.GET('/v1/groups', { params: { query: { limit: 200 } } }),
});

/** One policy (its latest version number, group). */
export const policyQuery = (id: string) =>
  queryOptions({
    queryKey: queryKeys.policies.one(id),
    queryFn: () => api.GET('/v1/policies/{id}', { params: { path: { id } } }),
  });
