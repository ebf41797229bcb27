// The API/worker configuration: parsed once at boot from the environment by a zod schema.
import { z } from 'zod';
import { isTrustEntry } from '../common/client-address';

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
  /** Admin token to create on first start instead of a random one (printed once otherwise). Must look like the
   *  tokens the API issues (`hwt_` prefix), since only those are looked up. */
  HOOKWARDEN_BOOTSTRAP_TOKEN: z
    .string()
    .regex(
      /^hwt_[A-Za-z0-9_-]{28,252}$/,
      'must be an API token of the form hwt_<28 to 252 characters of A-Z a-z 0-9 _ ->, e.g. hwt_ followed by ' +
        '`openssl rand -base64 32 | tr "+/" "-_" | tr -d =`',
    )
    .optional(),
  /** Key for signing list cursors (give every instance behind one load balancer the same one). */
  HOOKWARDEN_CURSOR_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Proxies whose X-Forwarded-For is trusted: comma-separated addresses, CIDR ranges or loopback/linklocal/
   *  uniquelocal. Empty (default): the socket's peer is the client address, forwarded headers are ignored. */
  TRUST_PROXY: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .refine(isTrustEntry, 'each entry must be an IP address, a CIDR range, loopback, linklocal or uniquelocal'),
      ),
    ),
  /** Ed25519 private key (PKCS#8 PEM, or base64 of it) used to sign bundles; generated and stored if absent. */
  HOOKWARDEN_SIGNING_KEY: z.string().min(1).optional(),
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

export type AppConfig = z.infer<typeof configSchema>;

/** Variables whose values are secrets: a problem with one is reported without its value. */
const SECRET_VARIABLES = new Set(['HOOKWARDEN_BOOTSTRAP_TOKEN', 'HOOKWARDEN_SIGNING_KEY', 'HOOKWARDEN_CURSOR_SECRET']);

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
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(root)';
        const value = env[name];
        const shown = value === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(value)})`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  return parsed.data;
}
