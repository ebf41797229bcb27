// Endpoint groups: CRUD with a permanent default group; a group in use cannot be deleted.
import { Injectable } from '@nestjs/common';
import type { Group } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { createdAtIdKey, decodeCursor, type Page, toPage } from '../common/pagination';
import type { GroupView } from './groups.dto';
import { GroupsRepository } from './groups.repository';

// Public view of a group.
export function toGroupView(g: Group): GroupView {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    isDefault: g.isDefault,
    createdAt: g.createdAt.toISOString(),
    updatedAt: g.updatedAt.toISOString(),
  };
}

@Injectable()
export class GroupsService {
  constructor(private readonly groups: GroupsRepository) {}

  // Creates a group; 409 when the name is taken.
  async create(input: { name: string; description?: string }, ctx: AuditContext): Promise<GroupView> {
    const row = await this.groups.create({ name: input.name, description: input.description ?? '' }, ctx);
    if (!row) throw nameTaken(input.name);
    return toGroupView(row);
  }

  // Lists groups newest first.
  async list(query: { limit: number; cursor?: string; namePrefix?: string }): Promise<Page<GroupView>> {
    const after = decodeCursor('groups', query.cursor, createdAtIdKey);
    const rows = await this.groups.list(query.namePrefix, query.limit + 1, after);
    return toPage('groups', rows, query.limit, toGroupView, (g) => ({ t: g.createdAt.toISOString(), id: g.id }));
  }

  // One group; 404 when absent.
  async get(id: string): Promise<GroupView> {
    const row = await this.groups.find(id);
    if (!row) throw notFound(id);
    return toGroupView(row);
  }

  // Renames or re-describes a group (the default group keeps its name).
  async update(id: string, input: { name?: string; description?: string }, ctx: AuditContext): Promise<GroupView> {
    const result = await this.groups.update(id, input, ctx);
    if (result === 'missing') throw notFound(id);
    if (result === 'taken') throw nameTaken(input.name ?? '');
    if (result === 'default_rename') {
      throw new ApiError('conflict', 'The default group cannot be renamed', { reason: 'default_group' });
    }
    return toGroupView(result);
  }

  // Deletes a group that nothing references; 409 naming what still uses it.
  async delete(id: string, ctx: AuditContext): Promise<GroupView> {
    const result = await this.groups.delete(id, ctx);
    switch (result.kind) {
      case 'deleted':
        return toGroupView(result.group);
      case 'missing':
        throw notFound(id);
      case 'default':
        throw new ApiError('conflict', 'The default group cannot be deleted', { reason: 'default_group' });
      case 'in_use': {
        const uses = Object.entries(result.usage)
          .filter(([, n]) => n > 0)
          .map(([what, n]) => `${n} ${what}`);
        throw new ApiError('conflict', `Group ${id} is still in use: ${uses.join(', ')}`, {
          reason: 'group_in_use',
          usage: result.usage,
        });
      }
    }
  }
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `Group ${id} not found`);
}

function nameTaken(name: string): ApiError {
  return new ApiError('conflict', `A group named ${JSON.stringify(name)} already exists`, {
    path: '$.name',
    reason: 'name_taken',
  });
}
