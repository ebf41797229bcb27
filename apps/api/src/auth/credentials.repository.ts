// Looks up stored credential hashes (API tokens and endpoint credentials).
import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';
import type { Principal } from './principal';

@Injectable()
export class CredentialsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Finds a live (not revoked, not expired) API token by hash and stamps its last use.
  async findUserToken(tokenHash: string, now: Date): Promise<Principal | null> {
    const token = await this.prisma.apiToken.findUnique({ where: { tokenHash } });
    if (!token || token.revokedAt || (token.expiresAt && token.expiresAt <= now)) return null;
    // Last-used time is advisory: update at most once a minute per token, off the request's critical path.
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > 60_000) {
      void this.prisma.apiToken.update({ where: { id: token.id }, data: { lastUsedAt: now } }).catch(() => undefined);
    }
    return { kind: 'user', tokenId: token.id, name: token.name, role: token.role };
  }

  // Finds a non-revoked endpoint by its credential hash.
  async findEndpoint(credentialHash: string): Promise<Principal | null> {
    const endpoint = await this.prisma.endpoint.findUnique({
      where: { credentialHash },
      select: { id: true, groupId: true, hostname: true, revokedAt: true },
    });
    if (!endpoint || endpoint.revokedAt) return null;
    return { kind: 'agent', endpointId: endpoint.id, groupId: endpoint.groupId, name: endpoint.hostname };
  }
}
