// The token CLI (built: run `npx tsc -b tsconfig.build.json` first) against a real database.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/run';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../apps/api/dist/cli/tokens.js');

describe('npm run tokens', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: testRedisPrefix(),
      LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    await db?.drop();
  });

  // Runs the CLI; resolves with exit code and output instead of throwing.
  async function tokens(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run('node', [CLI, ...args], { env, timeout: 30_000 });
      return { code: 0, stdout, stderr };
    } catch (err: any) {
      return { code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
    }
  }

  it('creates (secret printed once), lists and revokes tokens, audited as the CLI', async () => {
    const created = await tokens('create', '--name', 'ci bot', '--role', 'auditor', '--json');
    expect(created.code).toBe(0);
    const token = JSON.parse(created.stdout);
    expect(token.token).toMatch(/^hwt_/);
    expect(token.role).toBe('auditor');

    const human = await tokens('create', '--name', 'ops', '--role', 'admin', '--expires', '2099-01-01T00:00:00Z');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Secret \(shown only once\):\s+hwt_/);

    const list = await tokens('list');
    expect(list.code).toBe(0);
    // It names the database it works on (stderr, so JSON output stays clean).
    expect(list.stderr).toContain(`tokens: database ${db.url}`);
    expect(list.stderr).toContain('(DATABASE_URL)');
    expect(list.stdout).toContain(token.id);
    expect(list.stdout).toContain('ci bot');
    expect(list.stdout).not.toContain(token.token);

    const revoked = await tokens('revoke', token.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked token ${token.id}`);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const row = await client.query('SELECT revoked_at FROM api_tokens WHERE id = $1', [token.id]);
      expect(row.rows[0].revoked_at).not.toBeNull();
      const audit = await client.query(`SELECT action, actor_name FROM audit_log ORDER BY seq`);
      expect(audit.rows).toEqual([
        { action: 'token.create', actor_name: 'cli' },
        { action: 'token.create', actor_name: 'cli' },
        { action: 'token.revoke', actor_name: 'cli' },
      ]);
    } finally {
      await client.end();
    }
  });

  it('fails with a message for a bad role, a past expiry or an unknown token', async () => {
    const badRole = await tokens('create', '--name', 'x', '--role', 'root');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('must be admin, auditor or metrics');
    const past = await tokens('create', '--name', 'x', '--role', 'admin', '--expires', '2000-01-01T00:00:00Z');
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('expiresAt must be in the future');
    const unknown = await tokens('revoke', '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not found');
  });
});
