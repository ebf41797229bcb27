// The API/worker configuration: parsed once at boot from the environment by a zod schema.
import { z } from 'zod';
import { isTrustEntry } from '../common/client-address';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const httpUrl = z
  .string()
  .max(2000)
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s):// URL');

const groupList = z
  .string()
  .max(10_000)
  .transform((v) =>
    v
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== ''),
  );

/** One sentinel's address. */
export interface SentinelAddress {
  host: string;
  port: number;
}

// `host:port` (IPv6 in brackets) as an address.
function sentinelAddress(entry: string): SentinelAddress {
  const at = entry.lastIndexOf(':');
  return { host: entry.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(entry.slice(at + 1)) };
}

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Connections the kernel queues for accept (capped by net.core.somaxconn): a failover that moves thousands of
   *  agents at once to this instance queues their connects instead of dropping them (Node's default is 511). */
  LISTEN_BACKLOG: z.coerce.number().int().min(1).max(65535).default(4096),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/hookwarden'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  /** Redis Sentinels (`host:port,host:port,…`): when set, every Redis connection (queues, workers, pub/sub, rate
   *  limiter, nonce store) asks them for the current master of REDIS_SENTINEL_NAME and follows a failover; REDIS_URL
   *  then gives only the master's username, password, database and TLS (its host and port are not used). */
  REDIS_SENTINELS: z
    .string()
    .max(2000)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}):\d{1,5}$/, 'each entry must be host:port')
            .refine((v) => sentinelAddress(v).port >= 1 && sentinelAddress(v).port <= 65535, 'port must be 1-65535'),
        )
        .min(1, 'name at least one sentinel as host:port')
        .max(16)
        .transform((list) => list.map((v) => sentinelAddress(v))),
    )
    .optional(),
  /** The master name the sentinels monitor (`sentinel monitor <name> …`). */
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be the master name of `sentinel monitor` (letters, digits, . _ -)')
    .default('mymaster'),
  /** Password of the sentinels themselves (`requirepass` in sentinel.conf), when they have one. */
  REDIS_SENTINEL_PASSWORD: z.string().min(1).max(500).optional(),
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
  /** Key-encryption key (base64 of 32 random bytes) sealing the private signing keys stored in the database. */
  HOOKWARDEN_KEK: z.string().min(1).optional(),
  /** A file holding the KEK (base64); outside production it is generated there (0600) when missing. */
  HOOKWARDEN_KEK_FILE: z.string().min(1).optional(),
  /** Previous KEKs (comma-separated base64), only to open rows sealed before a rotation; they are re-sealed at start. */
  HOOKWARDEN_KEK_PREVIOUS: z.string().min(1).optional(),
  /** Long-poll bundle requests one API instance holds at once before answering 503 with Retry-After (one per agent:
   *  its GET /v1/agent/bundle names the shadow layer; agents older than that header also hold the shadow route's). */
  BUNDLE_MAX_WAITERS: z.coerce.number().int().min(0).default(50_000),
  /** Authentication failures allowed per client per window before 429. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  AUTH_FAILURE_WINDOW_SEC: z.coerce.number().int().min(1).default(60),
  /** Lifetime of an agent session (POST /v1/agent/session); agents renew before it ends. */
  AGENT_SESSION_TTL_SEC: z.coerce.number().int().min(5).max(3600).default(600),
  METRICS_ENDPOINT_STALE_SEC: z.coerce.number().int().min(1).default(900),
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
  /** Staged uploads waiting for the worker beyond which uploads are refused with 429 (the agent keeps its spool). */
  HOOK_RUN_INGEST_MAX_WAITING: z.coerce.number().int().min(1).default(2000),
  /** Inflated bytes of staged uploads waiting for the worker beyond which uploads are refused with 429. */
  HOOK_RUN_INGEST_MAX_WAITING_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(512 * 1024 * 1024),
  /** Interval at which the worker drains staged uploads no queue job woke it for (e.g. after losing Redis). */
  HOOK_RUN_DRAIN_INTERVAL_SEC: z.coerce.number().int().min(1).default(5),
  /** Interval at which the worker re-creates queued jobs PostgreSQL says must exist and Redis lacks (the ring advance
   *  of every rolling release, the maintenance schedules): after a Redis failover lost the last writes, or an empty
   *  Redis. */
  JOB_RECONCILE_INTERVAL_SEC: z.coerce.number().int().min(1).max(3600).default(30),
  /** Concurrent ingest jobs per worker process. */
  HOOK_RUN_INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How long a sequence gap may stay open (late retries) before it is recorded as a finding. */
  HOOK_RUN_GAP_GRACE_SEC: z.coerce.number().int().min(0).default(300),
  /** Months of hook-run partitions kept created ahead of time. */
  HOOK_RUN_PARTITIONS_AHEAD: z.coerce.number().int().min(1).max(24).default(3),
  /** Interval of the maintenance jobs (partitions, retention, chain reconciliation). */
  HOOK_RUN_MAINTENANCE_INTERVAL_SEC: z.coerce.number().int().min(1).default(300),
  /** OpenID Connect issuer (discovery at `<issuer>/.well-known/openid-configuration`); SSO is off without it. */
  OIDC_ISSUER_URL: httpUrl.optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  /** Where the IdP sends people back: `<public API URL>/v1/auth/oidc/callback`, registered at the IdP. */
  OIDC_REDIRECT_URL: httpUrl.optional(),
  OIDC_SCOPES: z
    .string()
    .regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, 'must be space-separated scope names')
    .refine((s) => s.split(' ').includes('openid'), 'must include openid')
    .default('openid profile email offline_access'),
  /** The claim that carries the person's IdP groups (a dotted path such as `realm_access.roles` works too). */
  OIDC_GROUPS_CLAIM: z.string().min(1).max(200).default('groups'),
  /** IdP groups whose members are admins / auditors (comma-separated). A person in neither is refused. */
  OIDC_ADMIN_GROUPS: groupList.default([]),
  OIDC_AUDITOR_GROUPS: groupList.default([]),
  /** Allow an `http://` issuer (tests and local development only; refused when NODE_ENV=production). */
  OIDC_ALLOW_INSECURE_ISSUER: bool.default(false),
  /** A session ends after this long without a request. */
  SESSION_IDLE_TIMEOUT_SEC: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(8 * 3600),
  /** A session ends this long after sign-in, however active. */
  SESSION_ABSOLUTE_TIMEOUT_SEC: z.coerce
    .number()
    .int()
    .min(60)
    .max(90 * 86400)
    .default(24 * 3600),
  /** How often a session re-checks the person's groups at the IdP (refresh token); role changes apply then. */
  SESSION_REFRESH_INTERVAL_SEC: z.coerce.number().int().min(10).max(86400).default(300),
  /** Session cookies carry `Secure` (and the `__Host-` prefix); set false only for plain-HTTP development. */
  SESSION_COOKIE_SECURE: bool.default(true),
  /** Longest lifetime of a personal token minted by a signed-in person for the CLI. */
  PERSONAL_TOKEN_MAX_TTL_SEC: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86400)
    .default(24 * 3600),
  /** Inventories older than this count as "unknown impact" in release previews. */
  INVENTORY_STALE_AFTER_SEC: z.coerce
    .number()
    .int()
    .min(60)
    .default(24 * 3600),
  /** A release whose preview suppresses more hooks than this (or turns hooks off anywhere) needs `previewAck`. */
  RELEASE_PREVIEW_ACK_THRESHOLD: z.coerce.number().int().min(0).default(0),
  /** How often an idle streaming destination looks for new events (docs/streaming.md). */
  STREAM_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** First retry delay of a failing destination; doubles per attempt (with jitter) up to STREAM_BACKOFF_MAX_MS. */
  STREAM_BACKOFF_BASE_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  STREAM_BACKOFF_MAX_MS: z.coerce.number().int().min(10).max(3_600_000).default(300_000),
  /** The HOSTNAME field of syslog messages and the host of HEC/OTLP events (default: this machine's name). */
  STREAM_HOSTNAME: z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be printable ASCII without spaces')
    .optional(),
  /** How often the worker evaluates the alert rules. */
  ALERT_INTERVAL_SEC: z.coerce.number().min(0.1).max(3600).default(30),
  /** Directory of the built web console served under /console (default: apps/console/dist). */
  CONSOLE_DIR: z.string().min(1).optional(),
});

/** Variables SSO needs together. */
const OIDC_REQUIRED = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URL'] as const;

/** Variables whose values are secrets: an error names them but never echoes what they hold. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'HOOKWARDEN_BOOTSTRAP_TOKEN',
  'HOOKWARDEN_CURSOR_SECRET',
  'HOOKWARDEN_SIGNING_KEY',
  'HOOKWARDEN_KEK',
  'HOOKWARDEN_KEK_PREVIOUS',
  'OIDC_CLIENT_SECRET',
  'REDIS_SENTINEL_PASSWORD',
]);

// A value as a message may show it: the password of a URL with credentials (DATABASE_URL, REDIS_URL…) is masked.
export function withoutPassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/?#\s]*@/i, '$1***@');
}

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
  const issue = (name: keyof AppConfig, message: string): void =>
    ctx.addIssue({ code: 'custom', path: [name], message });
  if (c.OIDC_ISSUER_URL) {
    for (const name of OIDC_REQUIRED) if (!c[name]) issue(name, 'required when OIDC_ISSUER_URL is set');
    if (c.OIDC_ADMIN_GROUPS.length === 0 && c.OIDC_AUDITOR_GROUPS.length === 0) {
      issue('OIDC_ADMIN_GROUPS', 'name at least one IdP group (or OIDC_AUDITOR_GROUPS) when SSO is on');
    }
    if (new URL(c.OIDC_ISSUER_URL).protocol === 'http:' && !c.OIDC_ALLOW_INSECURE_ISSUER) {
      issue('OIDC_ISSUER_URL', 'must be https:// (OIDC_ALLOW_INSECURE_ISSUER=true allows http for development)');
    }
    if (c.OIDC_ALLOW_INSECURE_ISSUER && c.NODE_ENV === 'production') {
      issue('OIDC_ALLOW_INSECURE_ISSUER', 'not allowed when NODE_ENV=production');
    }
  } else {
    for (const name of OIDC_REQUIRED) if (c[name]) issue(name, 'set OIDC_ISSUER_URL too (SSO is off)');
  }
  if (!c.SESSION_COOKIE_SECURE && c.NODE_ENV === 'production') {
    issue('SESSION_COOKIE_SECURE', 'must be true when NODE_ENV=production');
  }
  if (c.SESSION_IDLE_TIMEOUT_SEC > c.SESSION_ABSOLUTE_TIMEOUT_SEC) {
    issue('SESSION_IDLE_TIMEOUT_SEC', 'must not exceed SESSION_ABSOLUTE_TIMEOUT_SEC');
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
        const shown =
          value === undefined
            ? ''
            : SECRET_VARIABLES.has(name)
              ? ' (value hidden)'
              : ` (got ${JSON.stringify(withoutPassword(value))})`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  return parsed.data;
}
