// Persistence of saved views.
import { Injectable } from '@nestjs/common';
import type { SavedView as SavedViewRow } from '@prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export type { SavedViewRow };

/** Most views one person sees (theirs and the shared ones). */
export const MAX_VIEWS = 200;

@Injectable()
export class SavedViewsRepository {
  constructor(private readonly prisma: PrismaService) {}

  // The owner's views and the shared ones (of one kind when given), by name.
  list(ownerKey: string, kind: string | undefined): Promise<SavedViewRow[]> {
    return this.prisma.savedView.findMany({
      where: { ...(kind ? { kind } : {}), OR: [{ ownerKey }, { shared: true }] },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      take: MAX_VIEWS,
    });
  }

  // How many views the owner has saved.
  countOf(ownerKey: string): Promise<number> {
    return this.prisma.savedView.count({ where: { ownerKey } });
  }

  // Stores a new view.
  create(data: {
    name: string;
    kind: string;
    query: Record<string, string>;
    shared: boolean;
    ownerKey: string;
    ownerName: string;
  }): Promise<SavedViewRow> {
    return this.prisma.savedView.create({ data });
  }

  // One view, or null.
  get(id: string): Promise<SavedViewRow | null> {
    return this.prisma.savedView.findUnique({ where: { id } });
  }

  // Deletes a view (true when it existed).
  async delete(id: string): Promise<boolean> {
    return (await this.prisma.savedView.deleteMany({ where: { id } })).count > 0;
  }
}
