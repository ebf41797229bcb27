// Test factories for sync tests: groups, policies and versions written through Prisma.
// TEMPORARY: replace with the admin routes (POST /v1/groups, /v1/policies/:id/versions) once branch `admin` is merged.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FileSpec {
  path: string;
  content: string | Buffer;
  mode?: number;
}

// Opens a client on a test database.
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

// Creates a group and a policy in it; returns their ids.
export async function createGroupWithPolicy(dbUrl: string, name = `g-${randomBytes(4).toString('hex')}`) {
  return withClient(dbUrl, async (c) => {
    const g = await c.query(
      `INSERT INTO groups (id, name, updated_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id`,
      [name],
    );
    const groupId = g.rows[0].id as string;
    const p = await c.query(
      `INSERT INTO policies (id, name, group_id, updated_at) VALUES (gen_random_uuid(), $1, $2, now()) RETURNING id`,
      [`policy-${name}`, groupId],
    );
    return { groupId, policyId: p.rows[0].id as string };
  });
}

// A requirements.toml whose managed scripts live under `managedDir`.
export function requirementsToml(managedDir: string, marker: string): string {
  return (
    `# policy ${marker}\n[hooks]\nmanaged_dir = ${JSON.stringify(managedDir)}\n\n` +
    `[[hooks.PreToolUse]]\nmatcher = "Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n` +
    `command = ${JSON.stringify(managedDir + '/check.sh')}\n`
  );
}

// Adds the next version of a policy with its managed files; returns the version id and number.
export async function createVersion(
  dbUrl: string,
  policyId: string,
  toml: string,
  files: FileSpec[],
): Promise<{ versionId: string; number: number }> {
  return withClient(dbUrl, async (c) => {
    const n = await c.query(
      `UPDATE policies SET latest_version = latest_version + 1, updated_at = now() WHERE id = $1 RETURNING latest_version`,
      [policyId],
    );
    const number = n.rows[0].latest_version as number;
    const v = await c.query(
      `INSERT INTO policy_versions (id, policy_id, number, canonical_toml, structured, digest, author_name)
       VALUES (gen_random_uuid(), $1, $2, $3, '{}', $4, 'test') RETURNING id`,
      [policyId, number, toml, 'sha256:' + sha(toml + JSON.stringify(files.map((f) => [f.path, String(f.content)])))],
    );
    const versionId = v.rows[0].id as string;
    for (const f of files) {
      const content = Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content);
      await c.query(
        `INSERT INTO policy_files (id, version_id, path, content, sha256, size, mode) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)`,
        [versionId, f.path, content, sha(content), content.length, f.mode ?? 0o755],
      );
    }
    return { versionId, number };
  });
}

// Runs one query on a test database.
export async function query<T = any>(dbUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  return withClient(dbUrl, async (c) => (await c.query(sql, params)).rows as T[]);
}
