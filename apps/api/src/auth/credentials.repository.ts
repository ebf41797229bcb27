// Looks up stored credential hashes (API tokens and endpoint credentials).
import { Injectable } from '@nestjs/common';
import { PgPools } from '../database/pg-pools';
import { PrismaService } from '../prisma/prisma.service';
import type { Principal } from './principal';

/** The endpoint-credential lookup: a named (prepared once per connection) statement on the primary. */
const FIND_ENDPOINT = {
  name: 'hw-find-endpoint-by-credential',
  text: 'SELECT id, group_id, hostname, revoked_at FROM endpoints WHERE credential_hash = $1',
};

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
    }>({ ...FIND_ENDPOINT, values: [credentialHash] });
    const endpoint = res.rows[0];
    if (!endpoint || endpoint.revoked_at) return null;
    return { kind: 'agent', endpointId: endpoint.id, groupId: endpoint.group_id, name: endpoint.hostname };
  }
}
