// Finds groups and policies by id or by exact name.
import { CliError } from '../cli/errors';
import { isUuid } from '../cli/parse';
import { type ApiClient, listAll } from './api-client';
import type { GroupView, PolicyView } from './types';

// A group by id or exact name.
export async function resolveGroup(client: ApiClient, ref: string): Promise<GroupView> {
  if (isUuid(ref)) return client.json<GroupView>('GET', `/v1/groups/${ref}`);
  const found = (await listAll<GroupView>(client, '/v1/groups', { namePrefix: ref })).find((g) => g.name === ref);
  if (!found) throw new CliError(`no group named ${JSON.stringify(ref)}`);
  return found;
}

// A policy by id or exact name.
export async function resolvePolicy(client: ApiClient, ref: string): Promise<PolicyView> {
  if (isUuid(ref)) return client.json<PolicyView>('GET', `/v1/policies/${ref}`);
  const found = (await listAll<PolicyView>(client, '/v1/policies', { namePrefix: ref })).find((p) => p.name === ref);
  if (!found) throw new CliError(`no policy named ${JSON.stringify(ref)}`);
  return found;
}
