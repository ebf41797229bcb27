// Test factories for sync tests: groups, policies and versions authored through the admin API routes.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestApi } from './api';
import { call } from './http';

/** Where admin requests go: a test API, or any URL with an admin token (an HA cluster behind HAProxy). */
export type AdminTarget = Pick<TestApi, 'baseUrl' | 'adminToken'>;

export interface FileSpec {
  path: string;
  content: string;
  mode?: number;
}

// Sends an admin request and fails loudly on an unexpected status.
async function admin(api: AdminTarget, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(api.baseUrl, method, path, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// Creates a group and a policy in it (POST /v1/groups, POST /v1/policies); returns their ids.
export async function createGroupWithPolicy(api: AdminTarget, name = `g-${randomBytes(4).toString('hex')}`) {
  const group = await admin(api, 'POST', '/v1/groups', { name });
  const policy = await admin(api, 'POST', '/v1/policies', { name: `policy-${name}`, groupId: group.id });
  return { groupId: group.id as string, policyId: policy.id as string };
}

// A requirements.toml whose managed scripts live under `managedDir`; `marker` makes versions differ.
export function requirementsToml(managedDir: string, marker: string): string {
  return (
    `[hooks]\nmanaged_dir = ${JSON.stringify(managedDir)}\n\n` +
    `[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
    `command = ${JSON.stringify(`${managedDir}/check.sh ${marker}`)}\n`
  );
}

const latest = new Map<string, number>();

// Authors the next version of a policy (POST /v1/policies/:id/versions); returns its id, number and canonical TOML.
export async function createVersion(
  api: AdminTarget,
  policyId: string,
  toml: string,
  files: FileSpec[],
): Promise<{ versionId: string; number: number; toml: string }> {
  const v = await admin(api, 'POST', `/v1/policies/${policyId}/versions`, {
    toml,
    files: files.map((f) => ({ path: f.path, content: f.content, mode: f.mode ?? 0o755 })),
    baseVersion: latest.get(policyId) ?? 0,
  });
  latest.set(policyId, v.number);
  return { versionId: v.id, number: v.number, toml: v.toml };
}

// Runs one query on a test database.
export async function query<T = any>(dbUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
