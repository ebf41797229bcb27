// Looks up stored credential hashes (API tokens and endpoint credentials).
import type { KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { parseEndpointPublicKey } from '@hookwarden/hook-core';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';
import type { Principal } from './principal';

/** The endpoint-credential lookup: a named (prepared once per connection) statement on the primary. */
const FIND_ENDPOINT = {
  name: 'hw-find-endpoint-by-credential',
  text: 'SELECT id, group_id, hostname, revoked_at, admission FROM endpoints WHERE credential_hash = $1',
};

/** An endpoint's identity for signed requests (by id), prepared once per connection. */
const FIND_IDENTITY = {
  name: 'hw-find-endpoint-identity',
  text:
    'SELECT id, group_id, hostname, revoked_at, admission, key_id, public_key FROM endpoints ' + 'WHERE id = $1::uuid',
};

/** The same by key id (sessions are made with the endpoint key). */
const FIND_IDENTITY_BY_KEY = {
  name: 'hw-find-endpoint-identity-by-key',
  text:
    'SELECT id, group_id, hostname, revoked_at, admission, key_id, public_key FROM endpoints ' + 'WHERE key_id = $1',
};

/** What signed-request checks need of an endpoint (the public key parsed once, cached with it). */
export interface EndpointIdentity {
  endpointId: string;
  groupId: string;
  name: string;
  admission: string;
  revoked: boolean;
  keyId: string | null;
  publicKey: KeyObject | null;
}

interface IdentityRow {
  id: string;
  group_id: string;
  hostname: string;
  revoked_at: Date | null;
  admission: string;
  key_id: string | null;
  public_key: string | null;
}

// The identity of a row (a key that does not parse counts as none: the endpoint then cannot sign).
function identityOf(row: IdentityRow): EndpointIdentity {
  let publicKey: KeyObject | null = null;
  if (row.public_key) {
    try {
      publicKey = parseEndpointPublicKey(row.public_key);
    } catch {
      publicKey = null;
    }
  }
  return {
    endpointId: row.id,
    groupId: row.group_id,
    name: row.hostname,
    admission: row.admission,
    revoked: row.revoked_at !== null,
    keyId: row.key_id,
    publicKey,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class CredentialsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly pools: PgPools,
  ) {}

  // Finds a live (not revoked, not expired) API token by hash and stamps its last use.
  async findUserToken(tokenHash: string, now: Date): Promise<Principal | null> {
    const token = await this.prisma.apiToken.findUnique({ where: { tokenHash } });
    if (!token || token.revokedAt || (token.expiresAt && token.expiresAt <= now)) return null;
    // Last-used time is advisory: update at most once a minute per token, off the request's critical path.
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > 60_000) {
      void this.prisma.apiToken.update({ where: { id: token.id }, data: { lastUsedAt: now } }).catch(() => undefined);
    }
    const person =
      token.ownerIssuer && token.ownerSubject
        ? {
            issuer: token.ownerIssuer,
            subject: token.ownerSubject,
            email: token.ownerEmail,
            name: token.ownerName,
            sessionId: token.sessionId,
          }
        : undefined;
    return { kind: 'user', tokenId: token.id, name: token.name, role: token.role, ...(person ? { person } : {}) };
  }

  // Finds a non-revoked endpoint by its credential hash. Plain pg, not Prisma: every agent lands here after an API
  // restart (10,000 at once), where Prisma's per-query work costs several times the CPU and garbage.
  async findEndpoint(credentialHash: string): Promise<Principal | null> {
    const res = await this.pools.write.query<{
      id: string;
      group_id: string;
      hostname: string;
      revoked_at: Date | null;
      admission: string;
    }>({ ...FIND_ENDPOINT, values: [credentialHash] });
    const endpoint = res.rows[0];
    if (!endpoint || endpoint.revoked_at || endpoint.admission !== 'active') return null;
    return { kind: 'agent', endpointId: endpoint.id, groupId: endpoint.group_id, name: endpoint.hostname };
  }

  // An endpoint's identity by id (null when there is none); plain pg on the primary like findEndpoint.
  async findIdentity(endpointId: string): Promise<EndpointIdentity | null> {
    if (!UUID.test(endpointId)) return null;
    const res = await this.pools.write.query<IdentityRow>({ ...FIND_IDENTITY, values: [endpointId] });
    return res.rows[0] ? identityOf(res.rows[0]) : null;
  }

  // An endpoint's identity by its key id (null when no endpoint holds that key).
  async findIdentityByKey(keyId: string): Promise<EndpointIdentity | null> {
    const res = await this.pools.write.query<IdentityRow>({ ...FIND_IDENTITY_BY_KEY, values: [keyId] });
    return res.rows[0] ? identityOf(res.rows[0]) : null;
  }
}
