// Request/response schemas of saved views.
import { z } from 'zod';
import { createZodDto } from '../common/zod-dto';
import { queryText } from '../common/query';

export const SAVED_VIEW_KINDS = ['explorer', 'endpoints'] as const;

/** Most parameters one saved query holds. */
const MAX_PARAMS = 40;

export const savedViewQuerySchema = z
  .record(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be a query parameter name'),
    queryText(1000),
  )
  .refine((q) => Object.keys(q).length <= MAX_PARAMS, `must hold at most ${MAX_PARAMS} parameters`)
  .describe('The query string of the view: parameter name → value (as the console puts them in its URL)');

export const createSavedViewSchema = z
  .object({
    name: queryText(100).refine((s) => s.trim() !== '', 'must not be blank'),
    kind: z.enum(SAVED_VIEW_KINDS).describe('explorer (hook runs) or endpoints'),
    query: savedViewQuerySchema,
    shared: z.boolean().default(false).describe('Shared with everyone (admins only); else only yours'),
  })
  .strict();
export class CreateSavedViewDto extends createZodDto(createSavedViewSchema) {}
export type CreateSavedView = z.infer<typeof createSavedViewSchema>;

export const listSavedViewsQuerySchema = z.object({ kind: z.enum(SAVED_VIEW_KINDS).optional() }).strict();
export class ListSavedViewsQueryDto extends createZodDto(listSavedViewsQuerySchema) {}

export const savedViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(SAVED_VIEW_KINDS),
  query: z.record(z.string(), z.string()),
  shared: z.boolean(),
  ownerName: z.string(),
  mine: z.boolean().describe('You saved it (you may delete it; admins may delete shared ones too)'),
  createdAt: z.iso.datetime(),
});
export type SavedView = z.infer<typeof savedViewSchema>;
export class SavedViewDto extends createZodDto(savedViewSchema) {}

export const savedViewListSchema = z.object({
  items: z.array(savedViewSchema).describe('Yours and the shared ones, by name (at most 200)'),
});
export class SavedViewListDto extends createZodDto(savedViewListSchema) {}
