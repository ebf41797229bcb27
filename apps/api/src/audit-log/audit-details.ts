// What each audit action records in its entry's `details`: one table, checked by the compiler against the action
// table (an action without a details schema does not compile). The writers take these schemas' input types, and the
// audit-log response documents them, so what is written and what is documented cannot drift apart.
import { captureSettingsSchema } from '@hookwarden/hook-core';
import { z } from 'zod';
import type { AuditAction } from './audit-actions';

const id = z.string();
const time = z.string().describe('ISO 8601 time');
const named = z.object({ name: z.string() });
const groupFields = z.object({ name: z.string(), description: z.string().nullable() });
const policyFields = groupFields.extend({ groupId: id });
const policyChange = z.object({ before: policyFields, after: policyFields });
/** The release state every guarded transition records. */
const releaseState = z.object({ groupId: id, revision: z.number(), status: z.string(), currentRing: z.number() });
const enrolled = z.object({
  groupId: id,
  hostname: z.string(),
  enrollmentSecretId: id,
  keyId: z.string().nullable().describe('Key id the endpoint proved (null for a bearer enrollment)'),
});
const decided = z.object({
  hostname: z.string(),
  groupId: id,
  machineId: z.string().nullable(),
  duplicateOf: id.nullable().describe('The endpoint of the same machine id this enrollment duplicated'),
  retiredEndpointId: id.nullable().describe('The endpoint retired for this one (approve)'),
});
const tokenFields = z.object({ name: z.string(), role: z.string() });
/** A shadow release's report at the moment it was promoted or aborted (shadowReportSummary). */
const shadowReport = z
  .object({
    events: z.number().describe('Events its shadow layer ran on'),
    shadowRuns: z.number(),
    wouldNewlyDeny: z.number(),
    wouldStopDenying: z.number(),
    rewrites: z.number(),
    errors: z.number(),
    timeouts: z.number(),
  })
  .describe('The shadow report totals at that moment (GET /v1/releases/:id/shadow-report)');

export const AUDIT_DETAILS = {
  'group.create': named,
  'group.update': z.object({ before: groupFields, after: groupFields }),
  'group.delete': named,
  'group.audit_settings.update': z.object({ before: captureSettingsSchema, after: captureSettingsSchema }),
  'policy.create': named.extend({ groupId: id }),
  'policy.update': policyChange,
  'policy.move': policyChange,
  'policy.delete': named,
  'policy.version.create': z.object({
    version: z.number().describe('The new version number'),
    files: z.number().describe('Files in the version'),
    warnings: z.number().describe('Lint warnings it was saved with'),
  }),
  'release.create': z.object({
    groupId: id,
    policyVersionId: id,
    policyVersion: z.number(),
    revision: z.number(),
    strategy: z.string(),
    rings: z.array(z.number()),
    superseded: z.array(id).describe('Releases of the group this one superseded'),
  }),
  'release.advance': releaseState.extend({ fromRing: z.number(), toRing: z.number() }),
  'release.pause': releaseState.extend({ reason: z.string().nullable() }),
  'release.auto_pause': releaseState.extend({ reason: z.string().describe('Which failure ratio tripped the gate') }),
  'release.resume': releaseState,
  'release.abort': z.object({
    groupId: id,
    revision: z.number(),
    rollbackReleaseId: id.nullable(),
    rollbackRevision: z.number().nullable(),
  }),
  'release.promote': z.object({
    groupId: id,
    revision: z.number().describe('The shadow release’s revision'),
    promotedReleaseId: id.describe('The staged release it became'),
    promotedRevision: z.number(),
    rings: z.array(z.number()).describe('The staged release’s rings'),
    shadowReport,
  }),
  'release.shadow_abort': z.object({ groupId: id, revision: z.number(), shadowReport }),
  'endpoint.enroll': enrolled,
  'endpoint.reenroll': enrolled,
  'endpoint.enroll_pending': enrolled.extend({
    duplicateOf: id,
    reason: z.enum(['revoked', 'no_proof']),
    machineId: z.string(),
  }),
  'endpoint.key_migrate': z.object({ keyId: z.string() }),
  'endpoint.revoke': z.object({ hostname: z.string(), groupId: id }),
  'endpoint.move': z.object({ hostname: z.string(), fromGroupId: id, toGroupId: id, assignmentEpoch: z.number() }),
  'endpoint.approve': decided,
  'endpoint.reject': decided,
  'endpoint.readmit': z.object({
    hostname: z.string(),
    groupId: id,
    machineId: z.string().nullable(),
    revokedAt: time.nullable(),
  }),
  'endpoint.retire': z.object({ replacedBy: id, machineId: z.string().nullable() }),
  'enrollment_secret.create': z.object({
    groupId: id,
    name: z.string(),
    maxUses: z.number().nullable(),
    expiresAt: time.nullable(),
  }),
  'enrollment_secret.revoke': z.object({ groupId: id, name: z.string() }),
  'signing_key.create': z.object({ activated: z.boolean(), previousActiveKid: z.string().nullable() }),
  'signing_key.activate': z.object({ previousActiveKid: z.string().nullable() }),
  'signing_key.retire': z.object({ privateKeyDestroyed: z.boolean() }),
  'token.create': tokenFields.extend({ expiresAt: time.nullable() }),
  'token.create_personal': tokenFields.extend({ expiresAt: time }),
  'token.bootstrap': tokenFields,
  'token.revoke': named,
  'session.create': z.object({ role: z.string(), groups: z.array(z.string()), expiresAt: time }),
  'session.refuse': z.object({
    reason: z.string().describe('`no_mapped_group`, or the error the identity provider answered'),
    groups: z.array(z.string()).optional().describe('The person’s groups (no_mapped_group)'),
  }),
  'session.role_change': z.object({ from: z.string(), to: z.string() }),
  'session.revoke': z.object({ reason: z.string(), scope: z.enum(['session', 'person']), tokensRevoked: z.number() }),
  'inventory.deny_hash': z.object({ reason: z.string() }),
  'inventory.undeny_hash': z.object({}),
  'hook_runs.partition.drop': z.object({
    from: time,
    to: time,
    rows: z.number(),
    retentionDays: z.number(),
    cutoff: time,
  }),
  'stream_destination.create': z.object({
    name: z.string(),
    type: z.string().describe('syslog, syslog_tls, webhook, splunk_hec or otlp'),
    streams: z.array(z.string()),
    secrets: z.array(z.string()).describe('Names of the secrets set (never their values)'),
  }),
  'stream_destination.update': z.object({
    changed: z.record(z.string(), z.unknown()).describe('The fields sent, without secrets'),
    secrets: z.array(z.string()).describe('Names of the secrets replaced (never their values)'),
  }),
  'stream_destination.delete': z.object({ name: z.string(), type: z.string() }),
  'stream_destination.rotate_secret': z.object({ overlapSec: z.number(), previousUntil: time.nullable() }),
  'stream_destination.replay': z.object({
    fromTime: time.nullable(),
    fromEventId: z.string().nullable(),
    streams: z.array(z.string()),
    wasState: z.string(),
  }),
  'alert_rule.create': z.object({ name: z.string(), kind: z.string(), params: z.record(z.string(), z.unknown()) }),
  'alert_rule.update': z
    .object({ name: z.string(), params: z.record(z.string(), z.unknown()), enabled: z.boolean() })
    .partial()
    .describe('The fields changed'),
  'alert_rule.delete': z.object({ name: z.string(), kind: z.string() }),
} as const satisfies Record<AuditAction, z.ZodType>;

/** What an entry of action A records (as its writer passes it). */
export type AuditDetailsOf<A extends AuditAction> = z.input<(typeof AUDIT_DETAILS)[A]>;
