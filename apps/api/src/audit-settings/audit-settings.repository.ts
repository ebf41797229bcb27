// Stores per-group capture settings; every change is audited in the same transaction.
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';
import { appendAudit, type AuditContext } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import type { AuditSettings } from './audit-settings.dto';

@Injectable()
export class AuditSettingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // True when the group exists.
  async groupExists(groupId: string): Promise<boolean> {
    return (await this.prisma.group.count({ where: { id: groupId } })) > 0;
  }

  // The stored settings of a group, or null when it uses the defaults.
  async find(groupId: string): Promise<AuditSettings | null> {
    const row = await this.prisma.auditSettings.findUnique({ where: { groupId } });
    if (!row) return null;
    return {
      capture: row.capture as AuditSettings['capture'],
      maxExcerptBytes: row.maxExcerptBytes,
      redactPatterns: row.redactPatterns as string[],
      useDefaultRedact: row.useDefaultRedact,
      inventoryCommands: row.inventoryCommands as AuditSettings['inventoryCommands'],
    };
  }

  // Replaces a group's settings and writes the audit entry.
  async put(groupId: string, settings: AuditSettings, before: AuditSettings, ctx: AuditContext): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.auditSettings.upsert({
        where: { groupId },
        create: { groupId, ...settings, updatedBy: ctx.actorName },
        update: { ...settings, updatedAt: new Date(), updatedBy: ctx.actorName },
      });
      await appendAudit(tx, ctx, {
        action: 'group.audit_settings.update',
        targetType: 'group',
        targetId: groupId,
        beforeDigest: digest(before),
        afterDigest: digest(settings),
        details: { before, after: settings },
      });
    });
  }
}

// sha256 of the canonical JSON of a settings object.
function digest(value: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(value)).digest('hex');
}
