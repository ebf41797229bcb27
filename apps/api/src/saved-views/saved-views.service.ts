// Saved views: a person names an explorer or endpoints query; admins may share one with everyone. A view belongs to
// the SSO person who saved it (any of their sessions and personal tokens), else to the API token that saved it.
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import type { Principal } from '../auth/principal';
import { actorName } from '../auth/principal';
import type { CreateSavedView, SavedView } from './saved-views.dto';
import { MAX_VIEWS, type SavedViewRow, SavedViewsRepository } from './saved-views.repository';

// Who owns what a principal saves: the SSO person (issuer + subject), else the API token.
export function ownerKeyOf(p: Principal): string {
  if (p.kind !== 'user') return `agent:${p.endpointId}`;
  return p.person ? `person:${p.person.issuer}\n${p.person.subject}` : `token:${p.tokenId}`;
}

@Injectable()
export class SavedViewsService {
  constructor(private readonly repo: SavedViewsRepository) {}

  // The public view of a row for this owner.
  private view(r: SavedViewRow, owner: string): SavedView {
    const query: Record<string, string> = {};
    if (r.query && typeof r.query === 'object' && !Array.isArray(r.query)) {
      for (const [k, v] of Object.entries(r.query)) if (typeof v === 'string') query[k] = v;
    }
    return {
      id: r.id,
      name: r.name,
      kind: r.kind as SavedView['kind'],
      query,
      shared: r.shared,
      ownerName: r.ownerName,
      mine: r.ownerKey === owner,
      createdAt: r.createdAt.toISOString(),
    };
  }

  // The caller's views and the shared ones.
  async list(p: Principal, kind: string | undefined): Promise<{ items: SavedView[] }> {
    const owner = ownerKeyOf(p);
    return { items: (await this.repo.list(owner, kind)).map((r) => this.view(r, owner)) };
  }

  // Saves a view; a shared one only for admins (403), at most MAX_VIEWS per owner (409).
  async create(p: Principal, body: CreateSavedView): Promise<SavedView> {
    if (body.shared && (p.kind !== 'user' || p.role !== 'admin')) {
      throw new ApiError('forbidden', 'Only admins can share a view', [
        { path: '$.shared', message: 'shared views are saved by admins' },
      ]);
    }
    const owner = ownerKeyOf(p);
    if ((await this.repo.countOf(owner)) >= MAX_VIEWS) {
      throw new ApiError('conflict', `You have ${MAX_VIEWS} saved views already: delete one first`);
    }
    const row = await this.repo.create({
      name: body.name.trim(),
      kind: body.kind,
      query: body.query,
      shared: body.shared,
      ownerKey: owner,
      ownerName: actorName(p),
    });
    return this.view(row, owner);
  }

  // Deletes a view: your own, or (admins) a shared one; 404 for views you cannot see, 403 for others' shared ones.
  async delete(p: Principal, id: string): Promise<SavedView> {
    const owner = ownerKeyOf(p);
    const row = await this.repo.get(id);
    if (!row || (row.ownerKey !== owner && !row.shared)) throw new ApiError('not_found', `Saved view ${id} not found`);
    if (row.ownerKey !== owner && !(p.kind === 'user' && p.role === 'admin')) {
      throw new ApiError('forbidden', 'Only admins can delete a view shared by someone else');
    }
    await this.repo.delete(id);
    return this.view(row, owner);
  }
}
