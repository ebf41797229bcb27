// Request/response schemas of the admin audit-log routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { isoTime, queryText } from '../common/query';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditAction } from './audit-actions';
import { AUDIT_DETAILS } from './audit-details';

const auditEntryCommon = {
  seq: z.string().describe('Position in the chain (decimal string)'),
  id: z.uuid(),
  at: z.iso.datetime(),
  actorId: z.string().nullable(),
  actorName: z.string(),
  role: z.string(),
  targetId: z.string().nullable(),
  beforeDigest: z.string().nullable(),
  afterDigest: z.string().nullable(),
  requestId: z.string().nullable(),
  clientIp: z.string().nullable(),
  person: z
    .object({
      issuer: z.string(),
      subject: z.string(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      sessionId: z.string().nullable(),
    })
    .optional()
    .describe('The person behind the actor when they signed in through SSO (covered by the hash)'),
  prevHash: z.string(),
  hash: z.string(),
};

// One entry of action A: its target type and its details as the action and details tables give them.
const entryOf = <A extends AuditAction>(action: A) =>
  z.object({
    ...auditEntryCommon,
    action: z.literal(action),
    targetType: z.literal(AUDIT_ACTIONS[action].target as (typeof AUDIT_ACTIONS)[A]['target']),
    details: AUDIT_DETAILS[action].describe(AUDIT_ACTIONS[action].summary) as (typeof AUDIT_DETAILS)[A],
  });
type AuditEntrySchemaOf<A extends AuditAction> = ReturnType<typeof entryOf<A>>;

/** An entry, discriminated on `action` (one branch per action of the table). */
export const auditEntrySchema = z.discriminatedUnion(
  'action',
  AUDIT_ACTION_NAMES.map((a) => entryOf(a)) as unknown as [
    { [A in AuditAction]: AuditEntrySchemaOf<A> }[AuditAction],
    ...{ [A in AuditAction]: AuditEntrySchemaOf<A> }[AuditAction][],
  ],
);
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
export class AuditEntryPageDto extends createZodDto(pageSchema(auditEntrySchema)) {}

export const auditFilterSchema = z.object({
  action: z.enum(AUDIT_ACTION_NAMES).optional().describe('Exact action, e.g. `policy.version.create`'),
  actionPrefix: queryText(200).optional().describe('Action prefix, e.g. `group.`'),
  actor: queryText(200).optional().describe('Actor id (token or endpoint id) or actor name'),
  targetType: z.enum(AUDIT_TARGET_TYPES).optional().describe('The kind of target the entry names'),
  targetId: queryText(200).optional(),
  from: isoTime().optional().describe('Entries at or after this time (ISO 8601, 1970..9000)'),
  to: isoTime().optional().describe('Entries before this time (ISO 8601, 1970..9000)'),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const listAuditQuerySchema = paginationQuerySchema.extend(auditFilterSchema.shape).extend({
  format: z
    .enum(['json', 'ndjson', 'csv'])
    .default('json')
    .describe('json: one page; ndjson/csv: every matching entry streamed, oldest first (limit/cursor ignored)'),
});
export class ListAuditQueryDto extends createZodDto(listAuditQuerySchema) {}

/** What an audit-log checkpoint signature covers (keeps it apart from bundle and key-list signatures). */
export const CHECKPOINT_KIND = 'hookwarden.audit-log.checkpoint';

export const auditCheckpointSchema = z.object({
  kind: z.literal(CHECKPOINT_KIND),
  seq: z.string().describe('Sequence number of the newest entry (decimal string; "0" for an empty log)'),
  hash: z.string().describe('Hash of that entry'),
  at: z.iso.datetime().describe('When the server issued this checkpoint'),
  keyId: z.string().describe('Key that signed it (public keys: GET /v1/signing-keys)'),
  signature: z.string().describe('base64 Ed25519 signature of the canonical JSON of {kind, seq, hash, at}'),
});
export type AuditCheckpoint = z.infer<typeof auditCheckpointSchema>;
export class AuditCheckpointDto extends createZodDto(auditCheckpointSchema) {}

export const verifyQuerySchema = z
  .object({
    checkpointSeq: z
      .string()
      .regex(/^[1-9]\d{0,18}$/, 'a positive decimal sequence number')
      .optional()
      .describe('`seq` of a checkpoint you kept: the chain must still contain that entry with that hash'),
    checkpointHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex>')
      .optional()
      .describe('`hash` of the same checkpoint (give both or neither)'),
  })
  .superRefine((q, ctx) => {
    if ((q.checkpointSeq === undefined) === (q.checkpointHash === undefined)) return;
    const missing = q.checkpointSeq === undefined ? 'checkpointSeq' : 'checkpointHash';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'checkpointSeq and checkpointHash go together' });
  });
export class VerifyQueryDto extends createZodDto(verifyQuerySchema) {}

export const verifyProblems = [
  'missing_entries',
  'broken_link',
  'altered',
  'truncated',
  'rewritten',
  'head_missing',
] as const;

export const verifyResultSchema = z.object({
  ok: z.boolean(),
  checked: z.number().int().describe('Entries checked'),
  firstBrokenSeq: z.string().optional().describe('Sequence number of the first entry whose hash or link is wrong'),
  problem: z
    .enum(verifyProblems)
    .optional()
    .describe(
      'missing_entries: a gap inside the chain; broken_link / altered: an entry does not link to its predecessor / ' +
        'match its hash; truncated: the chain ends before the head or checkpoint; rewritten: the entry at the ' +
        'head or checkpoint has another hash; head_missing: the audit_log_head row is gone',
    ),
  reason: z.string().optional(),
  checkpoint: auditCheckpointSchema
    .optional()
    .describe('When ok: the signed end of the verified chain; keep it and pass it back to the next verify'),
});
export type VerifyResult = z.infer<typeof verifyResultSchema>;
export class VerifyResultDto extends createZodDto(verifyResultSchema) {}
