// Finds groups and policies by id or by exact name.
import { CliError } from '../cli/errors';
import { isUuid } from '../cli/parse';
import type { ApiClient } from './api-client';
import type { GroupView, PolicyView } from './types';

// A group by id or exact name.
export async function resolveGroup(client: ApiClient, ref: string): Promise<GroupView> {
  if (isUuid(ref)) return client.json('GET', '/v1/groups/{id}', { path: { id: ref } });
  const found = (await client.listAll('/v1/groups', { query: { namePrefix: ref } })).find((g) => g.name === ref);
  if (!found) throw new CliError(`no group named ${JSON.stringify(ref)}`);
  return found;
}

// A policy by id or exact name.
export async function resolvePolicy(client: ApiClient, ref: string): Promise<PolicyView> {
  if (isUuid(ref)) return client.json('GET', '/v1/policies/{id}', { path: { id: ref } });
  const found = (await client.listAll('/v1/policies', { query: { namePrefix: ref } })).find((p) => p.name === ref);
  if (!found) throw new CliError(`no policy named ${JSON.stringify(ref)}`);
  return found;
}
