// Request/response schemas of the streaming routes: destinations (targets, streams with filters, format, batching),
// their write-only secrets, rotation, replay and delivery status; alert rules and alerts (docs/streaming.md).
import { z } from 'zod';
import { createZodDto } from '../common/zod-dto';
import { nameText } from '../common/text';

/** Every destination type. */
export const DESTINATION_TYPES = ['syslog_tcp', 'syslog_tls', 'webhook', 'splunk_hec', 'otlp_http'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** Every stream a destination can receive. */
export const STREAM_NAMES = ['hookRuns', 'auditLog', 'findings', 'releases', 'alerts'] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** Delivery states: active (delivering or idle), failing (retrying with backoff), dead_letter (stopped, see lastError). */
export const DESTINATION_STATES = ['active', 'failing', 'dead_letter'] as const;
export type DestinationState = (typeof DESTINATION_STATES)[number];

const MAX_PEM = 64 * 1024;
const pem = (what: string) =>
  z
    .string()
    .max(MAX_PEM)
    .regex(/-----BEGIN [A-Z0-9 ]+-----[\s\S]+-----END [A-Z0-9 ]+-----/, `must be a PEM ${what}`);
const host = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:_-]+$/, 'must be a host name or an IP address');
const port = z.number().int().min(1).max(65535);
const httpsUrl = z
  .string()
  .max(2000)
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s):// URL')
  .refine((v) => !URL.canParse(v) || (new URL(v).username === '' && new URL(v).password === ''), {
    message: 'must not carry credentials (use the destination secrets)',
  });
const timeoutMs = z.number().int().min(100).max(120_000).default(10_000).describe('Per-request timeout');
const facility = z.number().int().min(0).max(23).default(16).describe('Syslog facility (16 = local0)');

const syslogTcp = z
  .object({
    type: z.literal('syslog_tcp'),
    host,
    port,
    facility,
    timeoutMs,
  })
  .strict();
const syslogTls = z
  .object({
    type: z.literal('syslog_tls'),
    host,
    port,
    facility,
    timeoutMs,
    caPem: pem('certificate').describe('The CA the collector’s certificate must chain to (pinned: no system CAs)'),
    serverName: host.optional().describe('Name the collector’s certificate must carry (default: host)'),
    clientCertPem: pem('certificate').optional().describe('Client certificate (its key goes in secrets.clientKeyPem)'),
  })
  .strict();
const httpCommon = {
  url: httpsUrl,
  gzip: z.boolean().default(false).describe('Send the body gzip-compressed (Content-Encoding: gzip)'),
  timeoutMs,
  caPem: pem('certificate').optional().describe('Pinned CA for an https:// URL (default: the system CAs)'),
};
const webhook = z
  .object({
    type: z.literal('webhook'),
    ...httpCommon,
    batch: z.enum(['json', 'ndjson']).default('ndjson').describe('A JSON array or one JSON event per line'),
  })
  .strict();
const splunkHec = z
  .object({
    type: z.literal('splunk_hec'),
    ...httpCommon,
    index: z.string().min(1).max(200).optional(),
    sourcetype: z.string().min(1).max(200).optional().describe('Default: hookwarden:<stream>'),
  })
  .strict();
const otlpHttp = z.object({ type: z.literal('otlp_http'), ...httpCommon }).strict();

export const targetSchema = z.discriminatedUnion('type', [syslogTcp, syslogTls, webhook, splunkHec, otlpHttp]);
export type Target = z.infer<typeof targetSchema>;

const headerName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name');
const headerValue = z
  .string()
  .max(4000)
  .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII');
export const secretsSchema = z
  .object({
    webhookSecret: z
      .string()
      .min(32, 'must be at least 32 characters')
      .max(512)
      .optional()
      .describe('HMAC-SHA256 signing secret of a webhook (write-only)'),
    hecToken: z.string().min(1).max(512).optional().describe('Splunk HEC token (write-only)'),
    clientKeyPem: pem('private key').optional().describe('Private key of the TLS client certificate (write-only)'),
    headers: z
      .record(headerName, headerValue)
      .refine((h) => Object.keys(h).length <= 20, 'at most 20 headers')
      .optional()
      .describe('Extra request headers, e.g. an OTLP collector’s Authorization (write-only)'),
  })
  .strict();
export type Secrets = z.infer<typeof secretsSchema> & { previousWebhookSecret?: string };

const filterList = (what: string) => z.array(z.string().min(1).max(200)).max(100).optional().describe(what);
export const hookRunFilterSchema = z
  .object({
    groups: z.array(z.uuid()).max(100).optional().describe('Only records of these groups'),
    events: filterList('Only these hook events'),
    decisions: filterList('Only these decisions'),
    statuses: filterList('Only these statuses'),
  })
  .strict();
export type HookRunFilter = z.infer<typeof hookRunFilterSchema>;
const on = z.object({}).strict();
export const streamsSchema = z
  .object({
    hookRuns: hookRunFilterSchema.optional().describe('Hook-run records (present: on, with its filters)'),
    auditLog: on.optional().describe('The admin audit log'),
    findings: on.optional().describe('Record-chain findings'),
    releases: on.optional().describe('Release events (created, advanced, paused, resumed, aborted)'),
    alerts: on.optional().describe('Alerts fired and resolved'),
  })
  .strict()
  .refine((s) => Object.values(s).some((v) => v !== undefined), 'choose at least one stream');
export type Streams = z.infer<typeof streamsSchema>;

const settings = {
  streams: streamsSchema,
  format: z.enum(['native', 'ocsf']).default('native').describe('Native JSON events, or OCSF-shaped ones'),
  enabled: z.boolean().default(true),
  requireAuditDelivery: z
    .boolean()
    .default(false)
    .describe('Admin writes answer 503 while this destination cannot record the admin audit log'),
  deadLetterAfterSec: z
    .number()
    .int()
    .min(10)
    .max(30 * 86400)
    .default(86400)
    .describe('Failing this long moves the destination to dead_letter'),
  batchMaxBytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(1024 * 1024),
  batchMaxEvents: z.number().int().min(1).max(10_000).default(1000),
};

export const createDestinationSchema = z
  .object({ name: nameText(), target: targetSchema, secrets: secretsSchema.optional(), ...settings })
  .strict();
export class CreateDestinationDto extends createZodDto(createDestinationSchema) {}
export type CreateDestination = z.infer<typeof createDestinationSchema>;

export const updateDestinationSchema = z
  .object({
    name: nameText().optional(),
    target: targetSchema.optional(),
    secrets: secretsSchema.optional().describe('Replaces the secrets named; others are kept'),
    streams: settings.streams.optional(),
    format: z.enum(['native', 'ocsf']).optional(),
    enabled: z.boolean().optional(),
    requireAuditDelivery: z.boolean().optional(),
    deadLetterAfterSec: settings.deadLetterAfterSec.unwrap().optional(),
    batchMaxBytes: settings.batchMaxBytes.unwrap().optional(),
    batchMaxEvents: settings.batchMaxEvents.unwrap().optional(),
  })
  .strict();
export class UpdateDestinationDto extends createZodDto(updateDestinationSchema) {}
export type UpdateDestination = z.infer<typeof updateDestinationSchema>;

export const rotateSecretSchema = z
  .object({
    secret: secretsSchema.shape.webhookSecret.unwrap(),
    overlapSec: z
      .number()
      .int()
      .min(0)
      .max(30 * 86400)
      .default(86400)
      .describe('How long the previous secret still signs (both signatures are sent)'),
  })
  .strict();
export class RotateSecretDto extends createZodDto(rotateSecretSchema) {}

export const replaySchema = z
  .object({
    fromTime: z.iso.datetime({ offset: true }).optional().describe('Deliver again every event committed from then on'),
    fromEventId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Deliver again from this event id on (in its stream; the other streams are left as they are)'),
  })
  .strict()
  .refine((r) => !(r.fromTime && r.fromEventId), 'give fromTime or fromEventId, not both');
export class ReplayDto extends createZodDto(replaySchema) {}
export type Replay = z.infer<typeof replaySchema>;

const streamStatusSchema = z.object({
  stream: z.enum(STREAM_NAMES),
  deliveredCount: z.number().int(),
  deliveredAt: z.iso.datetime().nullable(),
  oldestPendingAt: z.iso.datetime().nullable().describe('Commit time of the oldest event not yet delivered'),
  lagSec: z.number().describe('Seconds the oldest undelivered event has waited (0: caught up)'),
});

export const destinationViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  type: z.enum(DESTINATION_TYPES),
  target: targetSchema,
  secrets: z.array(z.string()).describe('Which secrets are set (names only: secrets are never returned)').default([]),
  secretRotatedAt: z.iso.datetime().nullable(),
  previousSecretUntil: z.iso.datetime().nullable(),
  streams: z.record(z.string(), z.unknown()),
  format: z.enum(['native', 'ocsf']),
  enabled: z.boolean(),
  requireAuditDelivery: z.boolean(),
  deadLetterAfterSec: z.number().int(),
  batchMaxBytes: z.number().int(),
  batchMaxEvents: z.number().int(),
  state: z.enum(DESTINATION_STATES),
  attempts: z.number().int(),
  failingSince: z.iso.datetime().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.iso.datetime().nullable(),
  lastDeliveredAt: z.iso.datetime().nullable(),
  deadLetteredAt: z.iso.datetime().nullable(),
  deliveredCount: z.number().int(),
  lagSec: z.number().describe('The largest lag of its streams'),
  cursors: z.array(streamStatusSchema),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
});
export class DestinationViewDto extends createZodDto(destinationViewSchema) {}
export type DestinationView = z.infer<typeof destinationViewSchema>;
export type StreamStatus = z.infer<typeof streamStatusSchema>;

export class DestinationListDto extends createZodDto(z.object({ items: z.array(destinationViewSchema) })) {}

export const destinationIdParamSchema = z.object({ id: z.uuid() });
export class DestinationIdParamDto extends createZodDto(destinationIdParamSchema) {}

// ---- alerts ----

/** Every alert rule kind, with its parameters. */
export const ALERT_KINDS = [
  'denial_rate',
  'chain_gap',
  'endpoint_silent',
  'rollout_paused',
  'signing_key_age',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const alertParamsSchema = z
  .object({
    windowSec: z
      .number()
      .int()
      .min(10)
      .max(7 * 86400)
      .optional()
      .describe('denial_rate: the window counted (default 300)'),
    maxDenials: z.number().int().min(0).optional().describe('denial_rate: fires above this many denials per window'),
    groupId: z.uuid().optional().describe('denial_rate, endpoint_silent: only this group'),
    hours: z
      .number()
      .min(0.001)
      .max(24 * 365)
      .optional()
      .describe('endpoint_silent: not seen for this many hours (default 24)'),
    maxAgeDays: z.number().min(0).max(3650).optional().describe('signing_key_age: active key older than (default 80)'),
  })
  .strict();
export type AlertParams = z.infer<typeof alertParamsSchema>;

export const createAlertRuleSchema = z
  .object({
    name: nameText(),
    kind: z.enum(ALERT_KINDS),
    params: alertParamsSchema.default({}),
    enabled: z.boolean().default(true),
  })
  .strict();
export class CreateAlertRuleDto extends createZodDto(createAlertRuleSchema) {}
export type CreateAlertRule = z.infer<typeof createAlertRuleSchema>;

export const updateAlertRuleSchema = z
  .object({ name: nameText().optional(), params: alertParamsSchema.optional(), enabled: z.boolean().optional() })
  .strict();
export class UpdateAlertRuleDto extends createZodDto(updateAlertRuleSchema) {}
export type UpdateAlertRule = z.infer<typeof updateAlertRuleSchema>;

export const alertRuleViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(ALERT_KINDS),
  params: alertParamsSchema,
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
});
export class AlertRuleViewDto extends createZodDto(alertRuleViewSchema) {}
export type AlertRuleView = z.infer<typeof alertRuleViewSchema>;
export class AlertRuleListDto extends createZodDto(z.object({ items: z.array(alertRuleViewSchema) })) {}

export const alertViewSchema = z.object({
  id: z.uuid(),
  ruleId: z.uuid(),
  ruleName: z.string(),
  kind: z.enum(ALERT_KINDS),
  subject: z.string().describe('What the episode is about (a release, endpoint, key id, group or "fleet")'),
  state: z.enum(['firing', 'resolved']),
  summary: z.string(),
  details: z.record(z.string(), z.unknown()),
  firedAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().nullable(),
});
export class AlertViewDto extends createZodDto(alertViewSchema) {}
export type AlertView = z.infer<typeof alertViewSchema>;
export class AlertListDto extends createZodDto(z.object({ items: z.array(alertViewSchema) })) {}

export const listAlertsQuerySchema = z
  .object({
    state: z.enum(['firing', 'resolved']).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();
export class ListAlertsQueryDto extends createZodDto(listAlertsQuerySchema) {}

export const alertRuleIdParamSchema = z.object({ id: z.uuid() });
export class AlertRuleIdParamDto extends createZodDto(alertRuleIdParamSchema) {}
