// Request/response schemas of enrollment secrets and of agent enrollment.
import { createZodDto } from '../common/zod-dto';
import { keyListSchema, trustedKeySchema } from '@hookwarden/hook-core';
import { z } from 'zod';

export const createEnrollmentSecretSchema = z
  .object({
    name: z.string().trim().max(200).default('').describe('What the secret is for'),
    expiresAt: z.iso.datetime({ offset: true }).optional().describe('Optional expiry (ISO 8601)'),
    maxUses: z.number().int().min(1).max(1_000_000).optional().describe('How many enrollments it allows'),
  })
  .strict();
export class CreateEnrollmentSecretDto extends createZodDto(createEnrollmentSecretSchema) {}

export const enrollmentSecretViewSchema = z.object({
  id: z.uuid(),
  groupId: z.uuid(),
  name: z.string(),
  prefix: z.string().describe('First characters of the secret, for recognition'),
  maxUses: z.number().int().nullable(),
  uses: z.number().int(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
});
export class EnrollmentSecretViewDto extends createZodDto(enrollmentSecretViewSchema) {}
export type EnrollmentSecretView = z.infer<typeof enrollmentSecretViewSchema>;

export const createdEnrollmentSecretSchema = enrollmentSecretViewSchema.extend({
  secret: z.string().describe('The enrollment secret (hws_…). Shown once; only its hash is stored.'),
});
export class CreatedEnrollmentSecretDto extends createZodDto(createdEnrollmentSecretSchema) {}

export const enrollmentSecretListSchema = z.object({ items: z.array(enrollmentSecretViewSchema) });
export class EnrollmentSecretListDto extends createZodDto(enrollmentSecretListSchema) {}

export const enrollSchema = z
  .object({
    secret: z.string().min(1).max(200).optional().describe('The enrollment secret (or send it as the bearer)'),
    hostname: z.string().trim().min(1).max(255),
    platform: z.enum(['linux', 'darwin', 'win32']).or(z.string().trim().min(1).max(32)),
    machineId: z.string().trim().min(8).max(200).describe('Stable hardware/machine id'),
    agentVersion: z.string().trim().min(1).max(64),
  })
  .strict();
export class EnrollDto extends createZodDto(enrollSchema) {}

export const publicKeySchema = trustedKeySchema;

export const signedStatementSchema = z.object({
  statement: z.string().describe('The exact signed text (canonical JSON)'),
  signature: z.string().describe('Ed25519 signature (base64) of `statement`'),
  keyId: z.string().describe('Key that signed it'),
});
export class SignedStatementDto extends createZodDto(signedStatementSchema) {}

export const enrolledSchema = z.object({
  endpointId: z.uuid(),
  groupId: z.uuid(),
  credential: z.string().describe('The endpoint credential (hwe_…). Shown once; only its hash is stored.'),
  reenrolled: z.boolean().describe('True when this machine was already enrolled (its old credential stops working)'),
  publicKeys: z.array(publicKeySchema).describe('Ed25519 public keys that sign bundles'),
  keyList: keyListSchema.describe('The signed key list (its sequence is the floor for later GET /v1/agent/keys)'),
  assignment: signedStatementSchema.describe(
    "The endpoint's signed group assignment (see GET /v1/agent/assignment): bundles of other groups are refused",
  ),
});
export class EnrolledDto extends createZodDto(enrolledSchema) {}

export const publicKeysSchema = keyListSchema;
export class PublicKeysDto extends createZodDto(publicKeysSchema) {}
