// Request/response schemas of enrollment secrets and of agent enrollment.
import { createZodDto } from '../common/zod-dto';
import { keyListSchema, MAX_PROOF_CHARS, MAX_PUBLIC_KEY_PEM_CHARS, trustedKeySchema } from '@hookwarden/hook-core';
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
    machineId: z.string().trim().min(8).max(200).describe('Stable hardware/machine id: a hint, never a credential'),
    agentVersion: z.string().trim().min(1).max(64),
    publicKey: z
      .string()
      .min(1)
      .max(MAX_PUBLIC_KEY_PEM_CHARS)
      .describe("The endpoint's new Ed25519 public key (SPKI PEM); its private key never leaves the endpoint"),
    created: z.number().int().min(0).max(1e11).describe('Unix seconds when the proof was made (server clock ± 300 s)'),
    proof: z
      .string()
      .min(1)
      .max(MAX_PROOF_CHARS)
      .describe(
        'Ed25519 signature (base64) by the new key of the `enroll` proof over secretSha256, hostname, platform, ' +
          'machineId, agentVersion, publicKey and created',
      ),
    previous: z
      .object({
        endpointId: z.uuid(),
        proof: z
          .string()
          .min(1)
          .max(MAX_PROOF_CHARS)
          .describe(
            "The endpoint's current key's `reenroll` proof over endpointId, machineId, the new publicKey, created",
          ),
      })
      .strict()
      .optional()
      .describe('Re-enrollment of an endpoint this machine already is: proven by its current key'),
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
  admission: z
    .enum(['active', 'pending'])
    .describe('pending (answer 202): the machine id is already known without proof of its key; an admin decides'),
  reenrolled: z
    .boolean()
    .describe('True when the old key proved this is the same endpoint (re-keyed; the old key stops working)'),
  publicKeys: z.array(publicKeySchema).describe('Ed25519 public keys that sign bundles'),
  keyList: keyListSchema.describe('The signed key list (its sequence is the floor for later GET /v1/agent/keys)'),
  assignment: signedStatementSchema.describe(
    "The endpoint's signed group assignment (see GET /v1/agent/assignment): bundles of other groups are refused",
  ),
});
export class EnrolledDto extends createZodDto(enrolledSchema) {}

export const publicKeysSchema = keyListSchema;
export class PublicKeysDto extends createZodDto(publicKeysSchema) {}

export const registerKeySchema = z
  .object({
    publicKey: z.string().min(1).max(MAX_PUBLIC_KEY_PEM_CHARS).describe('The new Ed25519 public key (SPKI PEM)'),
    proof: z
      .string()
      .min(1)
      .max(MAX_PROOF_CHARS)
      .describe('Ed25519 signature (base64) by the new key of the `migrate` proof over endpointId and publicKey'),
  })
  .strict();
export class RegisterKeyDto extends createZodDto(registerKeySchema) {}

export const registeredKeySchema = z.object({
  endpointId: z.uuid(),
  keyId: z.string().describe('The key id (ek1:…); the bearer credential no longer works'),
});
export class RegisteredKeyDto extends createZodDto(registeredKeySchema) {}
