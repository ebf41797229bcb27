// The API/worker configuration: parsed once at boot from the environment by a zod schema.
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/hookwarden'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  /** Prefix for every Redis key, queue and channel (lets several deployments or tests share one Redis). */
  REDIS_PREFIX: z.string().min(1).default('hookwarden'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_PRETTY: bool.default(false),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Admin token to create on first start instead of a random one (printed once otherwise). */
  HOOKWARDEN_BOOTSTRAP_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Ed25519 private key (PKCS#8 PEM, or base64 of it) used to sign bundles; generated and stored if absent. */
  HOOKWARDEN_SIGNING_KEY: z.string().min(1).optional(),
  /** Key-encryption key (base64 of 32 random bytes) sealing the private signing keys stored in the database. */
  HOOKWARDEN_KEK: z.string().min(1).optional(),
  /** A file holding the KEK (base64); outside production it is generated there (0600) when missing. */
  HOOKWARDEN_KEK_FILE: z.string().min(1).optional(),
  /** Previous KEKs (comma-separated base64), only to open rows sealed before a rotation; they are re-sealed at start. */
  HOOKWARDEN_KEK_PREVIOUS: z.string().min(1).optional(),
  /** Long-poll bundle requests one API instance holds at once before answering 503 with Retry-After. */
  BUNDLE_MAX_WAITERS: z.coerce.number().int().min(0).default(50_000),
  /** Authentication failures allowed per client per window before 429. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  AUTH_FAILURE_WINDOW_SEC: z.coerce.number().int().min(1).default(60),
  /** Days of hook-run records kept before partitions are dropped. */
  HOOK_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(400),
  /** Connection for auditor queries and exports (a read replica); defaults to DATABASE_URL. */
  DATABASE_READ_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  /** Largest hook-run upload accepted, after gzip inflation (decompression-bomb cap). */
  HOOK_RUN_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Most records in one upload. */
  HOOK_RUN_UPLOAD_MAX_RECORDS: z.coerce.number().int().min(1).default(5000),
  /** Ingest jobs waiting beyond which uploads are refused with 429 (the agent keeps its spool). */
  HOOK_RUN_INGEST_MAX_WAITING: z.coerce.number().int().min(1).default(2000),
  /** Concurrent ingest jobs per worker process. */
  HOOK_RUN_INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How long a sequence gap may stay open (late retries) before it is recorded as a finding. */
  HOOK_RUN_GAP_GRACE_SEC: z.coerce.number().int().min(0).default(300),
  /** Months of hook-run partitions kept created ahead of time. */
  HOOK_RUN_PARTITIONS_AHEAD: z.coerce.number().int().min(1).max(24).default(3),
  /** Interval of the maintenance jobs (partitions, retention, chain reconciliation). */
  HOOK_RUN_MAINTENANCE_INTERVAL_SEC: z.coerce.number().int().min(1).default(300),
});

/** The configuration schema with the rules between variables (checked after each variable on its own). */
const checkedConfigSchema = configSchema.superRefine((c, ctx) => {
  if (c.HOOKWARDEN_KEK && c.HOOKWARDEN_KEK_FILE) {
    ctx.addIssue({
      code: 'custom',
      path: ['HOOKWARDEN_KEK_FILE'],
      message: 'set HOOKWARDEN_KEK or HOOKWARDEN_KEK_FILE, not both',
    });
  }
  if (c.HOOKWARDEN_KEK) {
    const bytes = Buffer.from(c.HOOKWARDEN_KEK.trim().replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(c.HOOKWARDEN_KEK.trim()) || bytes.length !== 32) {
      ctx.addIssue({
        code: 'custom',
        path: ['HOOKWARDEN_KEK'],
        message: 'must be base64 of 32 random bytes (openssl rand -base64 32)',
      });
    }
  }
  if (c.NODE_ENV === 'production' && !c.HOOKWARDEN_KEK && !c.HOOKWARDEN_KEK_FILE && !c.HOOKWARDEN_SIGNING_KEY) {
    ctx.addIssue({
      code: 'custom',
      path: ['HOOKWARDEN_KEK'],
      message:
        'required in production (or HOOKWARDEN_KEK_FILE): the private signing keys stored in the database are sealed with it',
    });
  }
});

export type AppConfig = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// Parses an environment map into the typed configuration, naming every bad variable.
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const input: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = checkedConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(root)';
        const value = env[name];
        return `${name}: ${issue.message}${value !== undefined ? ` (got ${JSON.stringify(value)})` : ''}`;
      }),
    );
  }
  return parsed.data;
}
