// The endpoint assignment statement: which group an endpoint belongs to, signed by the server. Bundles are signed per
// group; an agent applies only bundles of the group its newest assignment names, so a validly signed bundle of another
// group cannot be pushed onto it, and a move between groups is an explicit, signed, forward-only step (the epoch).
import { createPublicKey, verify } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../trust/canonical-json';
import type { TrustedKey } from './key-list';

/** The `kind` of an assignment statement (keeps it from being mistaken for any other signed text). */
export const ASSIGNMENT_KIND = 'hookwarden.assignment';

export const assignmentStatementSchema = z
  .object({
    kind: z.literal(ASSIGNMENT_KIND),
    format: z.literal(1),
    endpointId: z.string().min(1).max(200),
    groupId: z.string().min(1).max(200),
    /** Per endpoint, +1 on every move between groups: a lower epoch is an old assignment (replay). */
    epoch: z.number().int().min(1),
    /** The lowest revision of the group this endpoint may be served now: older bundles of the group are replays. */
    minRevision: z.number().int().min(1).nullable(),
    issuedAt: z.iso.datetime(),
  })
  .strict();
export type AssignmentStatement = z.infer<typeof assignmentStatementSchema>;

/** A signed statement as sent: the exact signed text, its Ed25519 signature (base64) and the signing key id. */
export const signedStatementSchema = z
  .object({
    statement: z
      .string()
      .min(2)
      .max(64 * 1024),
    signature: z.string().min(1).max(200),
    keyId: z.string().min(1).max(200),
  })
  .strict();
export type SignedStatement = z.infer<typeof signedStatementSchema>;

// The canonical text of an assignment statement (the bytes the server signs).
export function assignmentText(statement: AssignmentStatement): string {
  return canonicalJson(assignmentStatementSchema.parse(statement));
}

// True when `signature` (base64) over `text` verifies with the trusted key named `keyId`.
export function verifySignedText(
  text: string,
  signature: string,
  keyId: string,
  trusted: readonly TrustedKey[],
): boolean {
  const key = trusted.find((k) => k.kid === keyId);
  if (!key) return false;
  try {
    return verify(null, Buffer.from(text, 'utf8'), createPublicKey(key.publicKeyPem), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

// Verifies a signed assignment statement and returns it; throws naming what is wrong.
export function verifyAssignment(input: unknown, trusted: readonly TrustedKey[]): AssignmentStatement {
  const shape = signedStatementSchema.safeParse(input);
  if (!shape.success) throw new Error(`assignment: not a signed statement (${shape.error.issues[0]?.message})`);
  const { statement, signature, keyId } = shape.data;
  if (!trusted.some((k) => k.kid === keyId)) throw new Error(`assignment: signed by untrusted key ${keyId}`);
  if (!verifySignedText(statement, signature, keyId, trusted))
    throw new Error(`assignment: bad signature (key ${keyId})`);
  return parseAssignment(statement);
}

// Parses assignment statement text (already verified, e.g. kept in the agent's state); throws naming the field.
export function parseAssignment(text: string): AssignmentStatement {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('assignment: statement is not JSON');
  }
  const parsed = assignmentStatementSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`assignment: ${i?.path.join('.') || '(root)'}: ${i?.message}`);
  }
  return parsed.data;
}
