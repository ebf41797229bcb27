// Persistence of immutable policy versions: numbered creation under a row lock on the policy, and reads.
import { Injectable } from '@nestjs/common';
import type { Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import type { PreparedVersion } from './version-content';

const FILE_META = { path: true, sha256: true, size: true, mode: true } as const;

export type VersionRow = Prisma.PolicyVersionGetPayload<{ include: { files: { select: typeof FILE_META } } }>;
export type VersionWithContent = Prisma.PolicyVersionGetPayload<{ include: { files: true } }>;
export type VersionSummaryRow = Prisma.PolicyVersionGetPayload<{ include: { _count: { select: { files: true } } } }>;

/** What the author says the edit is based on. */
export interface BaseRef {
  number?: number;
  digest?: string;
}

export type CreateVersionResult =
  | { kind: 'created'; version: VersionRow }
  | { kind: 'unchanged'; version: VersionRow }
  | { kind: 'missing' }
  | { kind: 'base_required'; current: VersionRow }
  | { kind: 'stale'; current: VersionRow | null };

@Injectable()
export class VersionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // Creates the next version unless it equals the latest (idempotent) or the base is stale; one transaction,
  // serialized per policy by a row lock, with its audit entry.
  async create(
    policyId: string,
    content: PreparedVersion,
    base: BaseRef,
    author: { id: string | null; name: string },
    message: string,
    ctx: AuditContext,
  ): Promise<CreateVersionResult> {
    return this.prisma.$transaction(
      async (tx) => {
        const locked = await tx.$queryRaw<Array<{ latest_version: number }>>`
          SELECT latest_version FROM policies WHERE id = ${policyId}::uuid FOR UPDATE`;
        const row = locked[0];
        if (!row) return { kind: 'missing' };
        const latest =
          row.latest_version > 0
            ? await tx.policyVersion.findUnique({
                where: { policyId_number: { policyId, number: row.latest_version } },
                include: { files: { select: FILE_META, orderBy: { path: 'asc' } } },
              })
            : null;
        if (latest && latest.digest === content.digest) return { kind: 'unchanged', version: latest };
        const given = base.number !== undefined || base.digest !== undefined;
        if (latest && !given) return { kind: 'base_required', current: latest };
        const numberStale = base.number !== undefined && base.number !== (latest?.number ?? 0);
        const digestStale = base.digest !== undefined && base.digest !== latest?.digest;
        if (numberStale || digestStale) return { kind: 'stale', current: latest };
        const number = (latest?.number ?? 0) + 1;
        const version = await tx.policyVersion.create({
          data: {
            policyId,
            number,
            canonicalToml: content.toml,
            structured: content.structured as Prisma.InputJsonObject,
            digest: content.digest,
            warnings: content.warnings,
            authorId: author.id,
            authorName: author.name,
            message,
            files: {
              create: content.files.map((f) => ({
                path: f.path,
                content: new Uint8Array(f.content),
                sha256: f.sha256,
                size: f.size,
                mode: f.mode,
              })),
            },
          },
          include: { files: { select: FILE_META, orderBy: { path: 'asc' } } },
        });
        await tx.policy.update({ where: { id: policyId }, data: { latestVersion: number } });
        await appendAudit(tx, ctx, {
          action: 'policy.version.create',
          targetType: 'policy',
          targetId: policyId,
          beforeDigest: latest?.digest ?? null,
          afterDigest: content.digest,
          details: { version: number, files: content.files.length, warnings: content.warnings.length },
        });
        return { kind: 'created', version };
      },
      { timeout: 30_000 },
    );
  }

  // Does the policy exist?
  async policyExists(policyId: string): Promise<boolean> {
    return (await this.prisma.policy.count({ where: { id: policyId } })) > 0;
  }

  // Versions of a policy, newest first, below an optional number (fetches `take` rows).
  async list(policyId: string, take: number, belowNumber?: number): Promise<VersionSummaryRow[]> {
    return this.prisma.policyVersion.findMany({
      where: { policyId, ...(belowNumber !== undefined ? { number: { lt: belowNumber } } : {}) },
      orderBy: { number: 'desc' },
      include: { _count: { select: { files: true } } },
      take,
    });
  }

  // One version with file metadata.
  async find(policyId: string, number: number): Promise<VersionRow | null> {
    return this.prisma.policyVersion.findUnique({
      where: { policyId_number: { policyId, number } },
      include: { files: { select: FILE_META, orderBy: { path: 'asc' } } },
    });
  }

  // One version with file contents.
  async findWithContent(policyId: string, number: number): Promise<VersionWithContent | null> {
    return this.prisma.policyVersion.findUnique({
      where: { policyId_number: { policyId, number } },
      include: { files: { orderBy: { path: 'asc' } } },
    });
  }

  // The canonical TOML and digest of one version (what endpoints receive).
  async findToml(policyId: string, number: number): Promise<{ canonicalToml: string; digest: string } | null> {
    return this.prisma.policyVersion.findUnique({
      where: { policyId_number: { policyId, number } },
      select: { canonicalToml: true, digest: true },
    });
  }
}
