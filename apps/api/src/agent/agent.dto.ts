// Request/response schemas of the agent routes (status; enrollment schemas live with enrollment).
import { createZodDto } from '../common/zod-dto';
import {
  STATUS_MAX_DIGEST_CHARS,
  STATUS_MAX_ERROR_CHARS,
  STATUS_MAX_ERRORS,
  STATUS_MAX_FILES,
  STATUS_MAX_PATH_CHARS,
} from '@hookwarden/hook-core';
import { z } from 'zod';

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 hex>');

export const statusSchema = z
  .object({
    state: z
      .enum(['applied', 'failed', 'drifted', 'pending'])
      .describe(
        'The managed layer: applied, failed (the bundle targetRevision names was refused), drifted (repaired), or ' +
          'pending (none applied yet: a report about the shadow layer only)',
      ),
    appliedRevision: z.number().int().min(1).nullable().describe('Revision of the layer on disk (null: none yet)'),
    appliedDigest: digest.nullable().describe('Digest of the bundle whose layer is on disk'),
    targetRevision: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('Revision this report is about (the refused bundle when failed; the applied one otherwise)'),
    errors: z.array(z.string().max(STATUS_MAX_ERROR_CHARS)).max(STATUS_MAX_ERRORS).default([]),
    files: z
      .array(
        z.object({
          path: z.string().max(STATUS_MAX_PATH_CHARS),
          sha256: z.string().max(STATUS_MAX_DIGEST_CHARS).nullable(),
        }),
      )
      .max(STATUS_MAX_FILES)
      .default([])
      .describe('On-disk digest of each managed file (null: missing), requirements.toml included'),
    counters: z
      .object({
        uploadsPending: z.number().int().min(0).default(0),
        recordsDropped: z.number().int().min(0).default(0),
      })
      .default({ uploadsPending: 0, recordsDropped: 0 }),
    agentVersion: z.string().max(64).optional(),
    contractVersion: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe("The policy/bundle contract the agent's engine understands (hook-core CONTRACT_VERSION)"),
    shadow: z
      .object({
        releaseId: z.uuid().nullable().describe('The shadow release whose layer is on disk (null: no shadow layer)'),
        revision: z.number().int().min(1).nullable(),
        digest: digest.nullable().describe('Digest of the shadow bundle on disk'),
        error: z
          .string()
          .max(STATUS_MAX_ERROR_CHARS)
          .nullable()
          .describe('Why the agent refused the last shadow bundle (null: it refused none since the last one applied)'),
      })
      .strict()
      .optional()
      .describe('The shadow layer (issue 27); absent from agents that predate shadow releases'),
  })
  .strict();
export class StatusDto extends createZodDto(statusSchema) {}
export type StatusInput = z.infer<typeof statusSchema>;

export const statusAcceptedSchema = z.object({ accepted: z.literal(true), serverTime: z.iso.datetime() });
export class StatusAcceptedDto extends createZodDto(statusAcceptedSchema) {}

export const sessionRequestSchema = z
  .object({
    ephemeralKey: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a raw X25519 public key, base64url of 32 bytes')
      .optional()
      .describe('An ephemeral X25519 public key: the session key is then answered sealed to it (preferred)'),
  })
  .strict();
export class SessionRequestDto extends createZodDto(sessionRequestSchema) {}

export const sessionSchema = z.object({
  sessionId: z.string().describe('The keyid of session-signed requests (opaque; names endpoint, key and expiry)'),
  expiresAt: z.iso.datetime().describe('When the session ends (renew before; 401 session_expired after)'),
  sealedKey: z
    .object({
      serverPublicKey: z.string().describe("The server's ephemeral X25519 public key (base64url)"),
      iv: z.string().describe('AES-256-GCM nonce (base64url)'),
      ciphertext: z.string().describe('The 32-byte session key then the GCM tag (base64url)'),
    })
    .optional()
    .describe('The session key sealed with ECDH(X25519) + HKDF-SHA256(salt = sessionId) + AES-256-GCM'),
  sessionKey: z.string().optional().describe('The session key in clear (base64url), only without ephemeralKey'),
});
export class SessionDto extends createZodDto(sessionSchema) {}
