// Persistence of policies (not their versions) and their audit entries.
import { Injectable } from '@nestjs/common';
import { type Policy, Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { afterCreatedAtId, type CreatedAtIdKey } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';

export type PolicyWriteResult =
  | { kind: 'ok'; policy: Policy }
  | { kind: 'missing' }
  | { kind: 'no_group' }
  | { kind: 'name_taken' }
  | { kind: 'has_versions'; count: number };

@Injectable()
export class PoliciesRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Creates a policy in a group (the default group when none is given) with its audit entry.
  async create(
    data: { name: string; description: string; groupId?: string },
    ctx: AuditContext,
  ): Promise<PolicyWriteResult> {
    return mapErrors(() =>
      this.prisma.$transaction(async (tx) => {
        const group = data.groupId
          ? await tx.group.findUnique({ where: { id: data.groupId } })
          : await tx.group.findFirst({ where: { isDefault: true } });
        if (!group) return { kind: 'no_group' } as const;
        const policy = await tx.policy.create({
          data: { name: data.name, description: data.description, groupId: group.id },
        });
        await appendAudit(tx, ctx, {
          action: 'policy.create',
          targetType: 'policy',
          targetId: policy.id,
          details: { name: policy.name, groupId: group.id },
        });
        return { kind: 'ok', policy } as const;
      }),
    );
  }

  // Finds a policy by id.
  async find(id: string): Promise<Policy | null> {
    return this.prisma.policy.findUnique({ where: { id } });
  }

  // Lists policies newest first, filtered by group and name prefix (fetches `take` rows).
  async list(
    filter: { groupId?: string; namePrefix?: string },
    take: number,
    after?: CreatedAtIdKey,
  ): Promise<Policy[]> {
    return this.prisma.policy.findMany({
      where: {
        AND: [
          afterCreatedAtId(after),
          filter.groupId ? { groupId: filter.groupId } : {},
          filter.namePrefix ? { name: { startsWith: filter.namePrefix } } : {},
        ],
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    });
  }

  // Renames, re-describes or moves a policy to another group, with its audit entry.
  async update(
    id: string,
    data: { name?: string; description?: string; groupId?: string },
    ctx: AuditContext,
  ): Promise<PolicyWriteResult> {
    return mapErrors(() =>
      this.prisma.$transaction(async (tx) => {
        const before = await tx.policy.findUnique({ where: { id } });
        if (!before) return { kind: 'missing' } as const;
        if (data.groupId && !(await tx.group.findUnique({ where: { id: data.groupId } }))) {
          return { kind: 'no_group' } as const;
        }
        const policy = await tx.policy.update({ where: { id }, data });
        const moved = policy.groupId !== before.groupId;
        await appendAudit(tx, ctx, {
          action: moved ? 'policy.move' : 'policy.update',
          targetType: 'policy',
          targetId: id,
          details: {
            before: { name: before.name, description: before.description, groupId: before.groupId },
            after: { name: policy.name, description: policy.description, groupId: policy.groupId },
          },
        });
        return { kind: 'ok', policy } as const;
      }),
    );
  }

  // Deletes a policy that has no versions (versions are immutable and kept), with its audit entry.
  async delete(id: string, ctx: AuditContext): Promise<PolicyWriteResult> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<
        Array<{ id: string }>
      >`SELECT id FROM policies WHERE id = ${id}::uuid FOR UPDATE`;
      if (locked.length === 0) return { kind: 'missing' } as const;
      const count = await tx.policyVersion.count({ where: { policyId: id } });
      if (count > 0) return { kind: 'has_versions', count } as const;
      const policy = await tx.policy.delete({ where: { id } });
      await appendAudit(tx, ctx, {
        action: 'policy.delete',
        targetType: 'policy',
        targetId: id,
        details: { name: policy.name },
      });
      return { kind: 'ok', policy } as const;
    });
  }
}

// Maps a unique-name violation to `name_taken`.
async function mapErrors(work: () => Promise<PolicyWriteResult>): Promise<PolicyWriteResult> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') return { kind: 'name_taken' };
    throw err;
  }
}
