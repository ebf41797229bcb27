// Persistence of bundle-signing keys (Ed25519 PEMs) in `signing_keys`: the active one, the trusted ones, rotation.
import { Injectable } from '@nestjs/common';
import { Prisma, type SigningKey } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import { LIVE_STATUSES } from '../releases/releases.repository';

/** Advisory lock key serializing key generation and rotation across instances. */
const KEYGEN_LOCK_KEY = 0x4877_6b67; // "Hwkg"

/** The stored key that signs new bundles: the latest activated non-retired key whose private half is stored. */
const ACTIVE_ORDER: Prisma.SigningKeyOrderByWithRelationInput[] = [
  { activatedAt: { sort: 'desc', nulls: 'last' } },
  { createdAt: 'desc' },
];
const ACTIVE_WHERE: Prisma.SigningKeyWhereInput = { retiredAt: null, privateKeySealed: { not: null } };

export interface GeneratedKey {
  kid: string;
  publicKeyPem: string;
  /** The private half, already sealed under the KEK. */
  privateKeySealed: string;
}

/** The key list sent to agents: the trusted keys (oldest first) and its sequence. */
export interface KeyListRows {
  keys: Array<Pick<SigningKey, 'kid' | 'publicKeyPem' | 'privateKeySealed'>>;
  /** Keys ever created + keys ever retired: grows with every change of the list and never goes back. */
  sequence: number;
}

/** Why a rotation step was refused (the service turns it into an API error). */
export type RotationRefusal =
  | { refused: 'not_found' }
  | { refused: 'retired' }
  | { refused: 'no_private_key' }
  | { refused: 'active' }
  | { refused: 'in_use'; groups: Array<{ id: string; name: string }> };

@Injectable()
export class SigningRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Returns the active stored key, or creates one with `generate` under a lock (first start).
  async findOrCreatePrivate(generate: () => GeneratedKey): Promise<{ key: SigningKey; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const existing = await tx.signingKey.findFirst({ where: ACTIVE_WHERE, orderBy: ACTIVE_ORDER });
      if (existing) return { key: existing, created: false };
      return { key: await tx.signingKey.create({ data: { ...generate(), activatedAt: new Date() } }), created: true };
    });
  }

  // The active stored key (null when none is stored).
  async activeStored(): Promise<SigningKey | null> {
    return this.prisma.signingKey.findFirst({ where: ACTIVE_WHERE, orderBy: ACTIVE_ORDER });
  }

  // Records the public half of a configured key so it is published to agents (idempotent).
  async ensurePublic(kid: string, publicKeyPem: string): Promise<void> {
    await this.prisma.signingKey.upsert({ where: { kid }, create: { kid, publicKeyPem }, update: {} });
  }

  // Every non-retired key (with its sealed private half when stored), oldest first, and the list's sequence, read
  // in one query (rows are never deleted and retiring is final, so the sequence only grows).
  async trusted(): Promise<KeyListRows> {
    const rows = await this.prisma.signingKey.findMany({
      orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }],
      select: { kid: true, publicKeyPem: true, privateKeySealed: true, retiredAt: true },
    });
    return {
      keys: rows
        .filter((r) => r.retiredAt === null)
        .map((r) => ({ kid: r.kid, publicKeyPem: r.publicKeyPem, privateKeySealed: r.privateKeySealed })),
      sequence: rows.length + rows.filter((r) => r.retiredAt !== null).length,
    };
  }

  // Re-seals every stored private key that is plain text or sealed under another KEK (`reseal` returns the new value,
  // or null when a row is fine), under the key lock; returns how many rows changed.
  async resealAll(reseal: (stored: string, kid: string) => string | null): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const rows = await tx.signingKey.findMany({
        where: { privateKeySealed: { not: null } },
        select: { kid: true, privateKeySealed: true },
      });
      let changed = 0;
      for (const r of rows) {
        const next = reseal(r.privateKeySealed!, r.kid);
        if (next === null) continue;
        await tx.signingKey.update({ where: { kid: r.kid }, data: { privateKeySealed: next } });
        changed++;
      }
      return changed;
    });
  }

  // Every key, retired ones included, newest first.
  async all(): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({ orderBy: [{ createdAt: 'desc' }, { kid: 'asc' }] });
  }

  // Stores a generated key (made active at once when asked), audited.
  async add(key: GeneratedKey, activate: boolean, ctx: AuditContext): Promise<SigningKey> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const previous = activate ? await tx.signingKey.findFirst({ where: ACTIVE_WHERE, orderBy: ACTIVE_ORDER }) : null;
      const row = await tx.signingKey.create({ data: { ...key, activatedAt: activate ? new Date() : null } });
      await appendAudit(tx, ctx, {
        action: 'signing_key.create',
        targetType: 'signing_key',
        targetId: row.kid,
        details: { activated: activate, previousActiveKid: previous?.kid ?? null },
      });
      return row;
    });
  }

  // Makes a stored, non-retired key the signer of new bundles, audited (a no-op when it already is).
  async activate(kid: string, ctx: AuditContext): Promise<SigningKey | RotationRefusal> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const row = await tx.signingKey.findUnique({ where: { kid } });
      if (!row) return { refused: 'not_found' as const };
      if (row.retiredAt) return { refused: 'retired' as const };
      if (!row.privateKeySealed) return { refused: 'no_private_key' as const };
      const previous = await tx.signingKey.findFirst({ where: ACTIVE_WHERE, orderBy: ACTIVE_ORDER });
      if (previous?.kid === kid) return row;
      const updated = await tx.signingKey.update({ where: { kid }, data: { activatedAt: new Date() } });
      await appendAudit(tx, ctx, {
        action: 'signing_key.activate',
        targetType: 'signing_key',
        targetId: kid,
        details: { previousActiveKid: previous?.kid ?? null },
      });
      return updated;
    });
  }

  // Retires a key (agents stop receiving it) and destroys its private half, audited; refused for the active key (`configuredKid` when the key
  // comes from configuration) and while a group's served bundle is still signed by it. Retiring twice is a no-op.
  async retire(kid: string, configuredKid: string | null, ctx: AuditContext): Promise<SigningKey | RotationRefusal> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYGEN_LOCK_KEY})`;
      const row = await tx.signingKey.findUnique({ where: { kid } });
      if (!row) return { refused: 'not_found' as const };
      if (row.retiredAt) return row;
      const activeKid =
        configuredKid ?? (await tx.signingKey.findFirst({ where: ACTIVE_WHERE, orderBy: ACTIVE_ORDER }))?.kid;
      if (activeKid === kid) return { refused: 'active' as const };
      // Served bundles: each group's current enforced release (and the previous one while it rolls out), and its live
      // shadow release.
      const groups = await tx.$queryRaw<Array<{ id: string; name: string }>>(Prisma.sql`
        WITH current AS (
          SELECT DISTINCT ON (group_id) group_id, status, previous_release_id, key_id
            FROM releases WHERE status IN (${Prisma.join(LIVE_STATUSES)}) AND strategy <> 'shadow'
           ORDER BY group_id, revision DESC),
        served AS (
          SELECT c.group_id, c.key_id, p.key_id AS previous_key_id FROM current c
            LEFT JOIN releases p ON p.id = c.previous_release_id AND c.status <> 'completed'
          UNION ALL
          SELECT group_id, key_id, NULL FROM releases
           WHERE strategy = 'shadow' AND status IN (${Prisma.join(LIVE_STATUSES)}))
        SELECT DISTINCT g.id::text AS id, g.name FROM served s
          JOIN groups g ON g.id = s.group_id
         WHERE s.key_id = ${kid} OR s.previous_key_id = ${kid}
         ORDER BY g.name`);
      if (groups.length > 0) return { refused: 'in_use' as const, groups };
      // No served bundle is signed by it any more: its private half is destroyed with the retirement.
      const updated = await tx.signingKey.update({
        where: { kid },
        data: { retiredAt: new Date(), privateKeySealed: null },
      });
      await appendAudit(tx, ctx, {
        action: 'signing_key.retire',
        targetType: 'signing_key',
        targetId: kid,
        details: { privateKeyDestroyed: row.privateKeySealed !== null },
      });
      return updated;
    });
  }
}
