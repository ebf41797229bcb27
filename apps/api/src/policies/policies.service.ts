// Policies: a named requirements.toml owned by one group at a time (versions live in versions.service.ts).
import { Injectable } from '@nestjs/common';
import type { Policy } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { createdAtIdKey, decodeCursor, type Page, toPage } from '../common/pagination';
import type { PolicyView } from './policies.dto';
import { PoliciesRepository, type PolicyWriteResult } from './policies.repository';

// Public view of a policy.
export function toPolicyView(p: Policy): PolicyView {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    groupId: p.groupId,
    latestVersion: p.latestVersion,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

@Injectable()
export class PoliciesService {
  constructor(private readonly policies: PoliciesRepository) {}

  // Creates a policy (no version yet).
  async create(
    input: { name: string; description?: string; groupId?: string },
    ctx: AuditContext,
  ): Promise<PolicyView> {
    const data = {
      name: input.name,
      description: input.description ?? '',
      ...(input.groupId ? { groupId: input.groupId } : {}),
    };
    return unwrap(await this.policies.create(data, ctx), '', input);
  }

  // Lists policies newest first.
  async list(query: {
    limit: number;
    cursor?: string;
    groupId?: string;
    namePrefix?: string;
  }): Promise<Page<PolicyView>> {
    const after = decodeCursor('policies', query.cursor, createdAtIdKey);
    const rows = await this.policies.list(query, query.limit + 1, after);
    return toPage('policies', rows, query.limit, toPolicyView, (p) => ({ t: p.createdAt.toISOString(), id: p.id }));
  }

  // One policy; 404 when absent.
  async get(id: string): Promise<PolicyView> {
    const row = await this.policies.find(id);
    if (!row) throw notFound(id);
    return toPolicyView(row);
  }

  // Updates name/description or moves the policy to another group.
  async update(
    id: string,
    input: { name?: string; description?: string; groupId?: string },
    ctx: AuditContext,
  ): Promise<PolicyView> {
    return unwrap(await this.policies.update(id, input, ctx), id, input);
  }

  // Deletes a policy without versions.
  async delete(id: string, ctx: AuditContext): Promise<PolicyView> {
    return unwrap(await this.policies.delete(id, ctx), id, {});
  }
}

// Turns a repository result into a view or the matching error.
function unwrap(result: PolicyWriteResult, id: string, input: { name?: string; groupId?: string }): PolicyView {
  switch (result.kind) {
    case 'ok':
      return toPolicyView(result.policy);
    case 'missing':
      throw notFound(id);
    case 'no_group':
      throw new ApiError(
        input.groupId ? 'validation_failed' : 'conflict',
        input.groupId ? `Group ${input.groupId} not found` : 'There is no default group',
        [{ path: '$.groupId', message: 'no such group', code: 'not_found' }],
      );
    case 'name_taken':
      throw new ApiError('conflict', `A policy named ${JSON.stringify(input.name ?? '')} already exists`, {
        path: '$.name',
        reason: 'name_taken',
      });
    case 'has_versions':
      throw new ApiError(
        'conflict',
        `Policy ${id} has ${result.count} version(s); versions are immutable, so the policy cannot be deleted`,
        { reason: 'policy_has_versions', versions: result.count },
      );
  }
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `Policy ${id} not found`);
}
