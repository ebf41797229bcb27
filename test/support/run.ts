// This test run's identity: every database and Redis key a test makes starts with RUN_PREFIX, so the run's global
// teardown removes exactly its own data and nothing of a run beside it (HW_TEST_RUN_PREFIX, set by test/global-setup.ts).
import { randomBytes } from 'node:crypto';

/** A run prefix: lower-case letters, digits and `_`, usable in database names and Redis keys. */
export const RUN_PREFIX_PATTERN = /^[a-z][a-z0-9_]{2,39}$/;

/** A fresh prefix for a run that was not given one: `hwt_<base-36 time>_<random>`. */
export function newRunPrefix(): string {
  return `hwt_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** The prefix of this run (global setup exports it to every test worker; a process outside vitest makes its own). */
export const RUN_PREFIX = (process.env.HW_TEST_RUN_PREFIX ||= newRunPrefix());

/** Redis server for tests that use the shared one (HW_TEST_REDIS_URL). */
export const TEST_REDIS_URL = process.env.HW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A Redis key prefix of its own for one test API, inside this run's namespace. */
export function testRedisPrefix(): string {
  return `${RUN_PREFIX}:${randomBytes(4).toString('hex')}`;
}
