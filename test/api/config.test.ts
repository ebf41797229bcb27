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
});
