// Who is calling: a person's API token (with a role) or an enrolled endpoint's agent credential.
import { createHash, randomBytes } from 'node:crypto';

export type UserRole = 'admin' | 'auditor' | 'metrics';

/** The person behind a user principal when they signed in through SSO (a session, or a personal token they minted). */
export interface Person {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  /** The SSO session of the request, or the one that minted the personal token. */
  sessionId: string | null;
}

export type Principal =
  | {
      kind: 'user';
      /** The API token's id; for a cookie session, the session's id. */
      tokenId: string;
      name: string;
      role: UserRole;
      /** Set for SSO sessions and personal tokens. */
      person?: Person;
      /** Set when the request is authenticated by a session cookie (not a bearer token). */
      via?: 'session';
    }
  | { kind: 'agent'; endpointId: string; groupId: string; name: string };

/** Prefix of people's API tokens. */
export const USER_TOKEN_PREFIX = 'hwt_';
/** Prefix of endpoint (agent) credentials. */
export const AGENT_TOKEN_PREFIX = 'hwe_';
/** Prefix of enrollment secrets. */
export const ENROLL_SECRET_PREFIX = 'hws_';

// Creates a random secret (256 bits) with a recognizable prefix.
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

// Hashes a secret for storage and lookup (secrets are high-entropy, so a fast hash is appropriate).
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

// The short, non-secret part of a secret shown in listings.
export function secretPrefix(secret: string): string {
  return secret.slice(0, 10);
}

// A display name for audit entries.
export function actorName(p: Principal): string {
  if (p.kind === 'agent') return `endpoint:${p.endpointId}`;
  return p.person ? (p.person.email ?? p.person.name ?? p.person.subject) : p.name;
}

export function actorRole(p: Principal): string {
  return p.kind === 'user' ? p.role : 'agent';
}
