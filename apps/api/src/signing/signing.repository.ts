// Persistence of bundle-signing keys (Ed25519 PEMs) in `signing_keys`.
import { Injectable } from '@nestjs/common';
import type { SigningKey } from '@prisma/client';
import { PrismaService } from '../prisma/prisma.service';

/** Advisory lock key serializing first-start key generation across instances. */
const KEYGEN_LOCK_KEY = 0x4877_6b67; // "Hwkg"

@Injectable()
export class SigningRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Returns the stored private key (newest non-retired), or creates one with `generate` under a lock.
  async findOrCreatePrivate(
    generate: () => { kid: string; publicKeyPem: string; privateKeyPem: string },
  ): Promise<{ key: SigningKey; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const existing = await tx.signingKey.findFirst({
        where: { retiredAt: null, privateKeyPem: { not: null } },
        orderBy: { createdAt: 'desc' },
      });
      if (existing) return { key: existing, created: false };
      return { key: await tx.signingKey.create({ data: generate() }), created: true };
    });
  }

  // Records the public half of a configured key so it is published to agents (idempotent).
  async ensurePublic(kid: string, publicKeyPem: string): Promise<void> {
    await this.prisma.signingKey.upsert({ where: { kid }, create: { kid, publicKeyPem }, update: {} });
  }

  // Every non-retired public key, oldest first.
  async trusted(): Promise<Array<{ kid: string; publicKeyPem: string }>> {
    return this.prisma.signingKey.findMany({
      where: { retiredAt: null },
      orderBy: { createdAt: 'asc' },
      select: { kid: true, publicKeyPem: true },
    });
  }
}
