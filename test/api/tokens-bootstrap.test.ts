import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import pg from 'pg';

describe('bootstrap admin token', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('stores only the hash of the bootstrap token and writes an audit entry', async () => {
    const client = new pg.Client({ connectionString: api.db.url });
    await client.connect();
    try {
      const tokens = await client.query('SELECT token_hash, role, prefix FROM api_tokens');
      expect(tokens.rowCount).toBe(1);
      expect(tokens.rows[0].role).toBe('admin');
      expect(tokens.rows[0].token_hash).not.toContain(api.adminToken);
      expect(tokens.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
      const audit = await client.query('SELECT action, prev_hash FROM audit_log ORDER BY seq');
      expect(audit.rows.map((r) => r.action)).toEqual(['token.bootstrap']);
    } finally {
      await client.end();
    }
  });
});
