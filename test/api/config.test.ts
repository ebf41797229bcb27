import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../apps/api/src/config/config.schema';

describe('configuration', () => {
  it('defaults to local PostgreSQL and Redis', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/hookwarden');
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.PORT).toBe(3000);
  });

  it('names every bad variable with its value', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('DATABASE_URL');
    expect(problems).toContain('"mysql://x"');
    expect(problems).toContain('LOG_LEVEL');
  });

  it('names a bad secret variable without echoing its value', () => {
    let error: unknown;
    try {
      loadConfig({ HOOKWARDEN_KEK: 'not-a-real-kek-but-still-secret', OIDC_CLIENT_SECRET: 'client-secret-value' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('HOOKWARDEN_KEK');
    expect(problems).toContain('OIDC_CLIENT_SECRET: set OIDC_ISSUER_URL too');
    expect(problems).not.toContain('not-a-real-kek-but-still-secret');
    expect(problems).not.toContain('client-secret-value');
  });

  it('masks the password of a URL it echoes (DATABASE_URL, REDIS_URL)', () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://app:hunter2-db-pass@db.internal/hw', REDIS_URL: 'ftp://:redis-pass@r' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('DATABASE_URL');
    expect(problems).toContain('mysql://app:***@db.internal/hw');
    expect(problems).toContain('REDIS_URL');
    expect(problems).not.toContain('hunter2-db-pass');
    expect(problems).not.toContain('redis-pass');
  });
});
