// Persistence of endpoint groups and their audit entries.
import { Injectable } from '@nestjs/common';
import { type Group, Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { afterCreatedAtId, type CreatedAtIdKey } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';

/** What still references a group (a group in use cannot be deleted). */
export interface GroupUsage {
  policies: number;
  endpoints: number;
  enrollmentSecrets: number;
  releases: number;
}

export type DeleteGroupResult =
  { kind: 'deleted'; group: Group } | { kind: 'missing' } | { kind: 'default' } | { kind: 'in_use'; usage: GroupUsage };

@Injectable()
export class GroupsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Creates a group with its audit entry; null when the name is taken.
  async create(data: { name: string; description: string }, ctx: AuditContext): Promise<Group | null> {
    return uniqueOrNull(() =>
      this.prisma.$transaction(async (tx) => {
        const row = await tx.group.create({ data });
        await appendAudit(tx, ctx, {
          action: 'group.create',
          targetType: 'group',
          targetId: row.id,
          details: { name: row.name },
        });
        return row;
      }),
    );
  }

  // Finds a group by id.
  async find(id: string): Promise<Group | null> {
    return this.prisma.group.findUnique({ where: { id } });
  }

  // Finds the default group.
  async findDefault(): Promise<Group | null> {
    return this.prisma.group.findFirst({ where: { isDefault: true } });
  }

  // Lists groups newest first, optionally by name prefix (fetches `take` rows).
  async list(namePrefix: string | undefined, take: number, after?: CreatedAtIdKey): Promise<Group[]> {
    return this.prisma.group.findMany({
      where: { AND: [afterCreatedAtId(after), namePrefix ? { name: { startsWith: namePrefix } } : {}] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  // Updates a group with its audit entry; 'missing' / 'taken' / 'default_rename' when it cannot.
  async update(
    id: string,
    data: { name?: string; description?: string },
    ctx: AuditContext,
  ): Promise<Group | 'missing' | 'taken' | 'default_rename'> {
    const result = await uniqueOrNull(() =>
      this.prisma.$transaction(async (tx) => {
        const before = await tx.group.findUnique({ where: { id } });
        if (!before) return 'missing' as const;
        if (before.isDefault && data.name !== undefined && data.name !== before.name) return 'default_rename' as const;
        const row = await tx.group.update({ where: { id }, data });
        await appendAudit(tx, ctx, {
          action: 'group.update',
          targetType: 'group',
          targetId: id,
          details: {
            before: { name: before.name, description: before.description },
            after: { name: row.name, description: row.description },
          },
        });
        return row;
      }),
    );
    return result ?? 'taken';
  }

  // Deletes an unused, non-default group with its audit entry (the group row is locked while checking usage).
  async delete(id: string, ctx: AuditContext): Promise<DeleteGroupResult> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM groups WHERE id = ${id}::uuid FOR UPDATE`;
      if (locked.length === 0) return { kind: 'missing' };
      const group = await tx.group.findUniqueOrThrow({ where: { id } });
      if (group.isDefault) return { kind: 'default' };
      const [policies, endpoints, enrollmentSecrets, releases] = await Promise.all([
        tx.policy.count({ where: { groupId: id } }),
        tx.endpoint.count({ where: { groupId: id } }),
        tx.enrollmentSecret.count({ where: { groupId: id } }),
        tx.release.count({ where: { groupId: id } }),
      ]);
      const usage = { policies, endpoints, enrollmentSecrets, releases };
      if (policies + endpoints + enrollmentSecrets + releases > 0) return { kind: 'in_use', usage };
      await tx.group.delete({ where: { id } });
      await appendAudit(tx, ctx, {
        action: 'group.delete',
        targetType: 'group',
        targetId: id,
        details: { name: group.name },
      });
      return { kind: 'deleted', group };
    });
  }
}

// Runs `work`; a unique-constraint violation becomes null.
export async function uniqueOrNull<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return null;
    throw err;
  }
}
