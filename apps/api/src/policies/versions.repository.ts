// Persistence of immutable policy versions: numbered creation under a row lock on the policy, and reads.
import { Injectable } from '@nestjs/common';
import type { Prisma } from '@prisma/client';
import { type AuditContext, appendAudit } from '../audit-log/audit-log.writer';
import { PrismaService } from '../prisma/prisma.service';
import type { ApiPreparedVersion } from './version-content';

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
    content: ApiPreparedVersion,
    base: BaseRef,
    author: { id: string | null; name: string },
    message: string,
    ctx: AuditContext,
  ): Promise<CreateVersionResult> {
    return this.prisma.$transaction(
      async (tx) => {
        // Lock the policy row (serializes version numbering per policy) and read the latest digest in one query.
        const locked = await tx.$queryRaw<Array<{ latest_version: number; latest_digest: string | null }>>`
          SELECT p.latest_version, v.digest AS latest_digest
          FROM policies p
          LEFT JOIN policy_versions v ON v.policy_id = p.id AND v.number = p.latest_version
          WHERE p.id = ${policyId}::uuid
          FOR UPDATE OF p`;
        const row = locked[0];
        if (!row) return { kind: 'missing' };
        const latestNumber = row.latest_version;
        const latestDigest = row.latest_digest;
        const loadLatest = () =>
          tx.policyVersion.findUniqueOrThrow({
            where: { policyId_number: { policyId, number: latestNumber } },
            include: { files: { select: FILE_META, orderBy: { path: 'asc' } } },
          });
        if (latestNumber > 0 && latestDigest === content.digest)
          return { kind: 'unchanged', version: await loadLatest() };
        const given = base.number !== undefined || base.digest !== undefined;
        if (latestNumber > 0 && !given) return { kind: 'base_required', current: await loadLatest() };
        const numberStale = base.number !== undefined && base.number !== latestNumber;
        const digestStale = base.digest !== undefined && base.digest !== latestDigest;
        if (numberStale || digestStale) return { kind: 'stale', current: latestNumber > 0 ? await loadLatest() : null };
        const number = latestNumber + 1;
        const data = {
          policyId,
          number,
          canonicalToml: content.toml,
          structured: content.structured as Prisma.InputJsonObject,
          digest: content.digest,
          warnings: content.warnings,
          authorId: author.id,
          authorName: author.name,
          message,
        };
        const created = await tx.policyVersion.create({ data, select: { id: true, createdAt: true } });
        if (content.files.length > 0) {
          await tx.policyFile.createMany({
            data: content.files.map((f) => ({
              versionId: created.id,
              path: f.path,
              content: new Uint8Array(f.content),
              sha256: f.sha256,
              size: f.size,
              mode: f.mode,
            })),
          });
        }
        await tx.$executeRaw`UPDATE policies SET latest_version = ${number}, updated_at = now() WHERE id = ${policyId}::uuid`;
        await appendAudit(tx, ctx, {
          action: 'policy.version.create',
          targetType: 'policy',
          targetId: policyId,
          beforeDigest: latestDigest,
          afterDigest: content.digest,
          details: { version: number, files: content.files.length, warnings: content.warnings.length },
        });
        const files = content.files
          .map((f) => ({ path: f.path, sha256: f.sha256, size: f.size, mode: f.mode }))
          .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const version: VersionRow = {
          ...data,
          id: created.id,
          createdAt: created.createdAt,
          structured: content.structured as Prisma.JsonValue,
          warnings: content.warnings,
          files,
        };
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
