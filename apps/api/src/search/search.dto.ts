// Request/response schemas of global search.
import { z } from 'zod';
import { createZodDto } from '../common/zod-dto';
import { limitParam, queryText } from '../common/query';

export const searchQuerySchema = z
  .object({
    q: queryText(200)
      .refine((s) => s.trim() !== '', 'must not be blank')
      .describe('What to look for: part of a hostname, a name or a command; an id, hash or digest'),
    limit: limitParam(5, 20).describe('Results per kind (1–20, default 5)'),
  })
  .strict();
export class SearchQueryDto extends createZodDto(searchQuerySchema) {}
export type SearchQuery = z.infer<typeof searchQuerySchema>;

/** One kind's results: at most `limit`, and whether there are more. */
function kind<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), more: z.boolean().describe('More match than shown') });
}

export const searchResultSchema = z.object({
  endpoints: kind(
    z.object({
      id: z.uuid(),
      hostname: z.string(),
      groupId: z.uuid(),
      groupName: z.string(),
      platform: z.string(),
    }),
  ).describe('Endpoints by hostname (part of it) or id'),
  groups: kind(z.object({ id: z.uuid(), name: z.string() })).describe('Groups by name'),
  hooks: kind(
    z.object({
      hash: z.string(),
      program: z.string().nullable(),
      command: z.string().nullable().describe('The command as captured in inventories (null when not captured)'),
      endpoints: z.number().int().describe('Endpoints whose inventory holds it'),
    }),
  ).describe('Inventoried hooks by definition hash (prefix) or command text'),
  policies: kind(z.object({ id: z.uuid(), name: z.string(), latestVersion: z.number().int() })).describe(
    'Policies by name',
  ),
  versions: kind(
    z.object({
      policyId: z.uuid(),
      policyName: z.string(),
      number: z.number().int(),
      message: z.string(),
      digest: z.string(),
    }),
  ).describe('Policy versions by message, digest (prefix), or `<policy name> v<n>`'),
  releases: kind(
    z.object({
      id: z.uuid(),
      groupId: z.uuid(),
      groupName: z.string(),
      revision: z.number().int(),
      status: z.string(),
      digest: z.string(),
    }),
  ).describe('Releases by id, digest (prefix), or revision within a group named in the query'),
});
export class SearchResultDto extends createZodDto(searchResultSchema) {}
export type SearchResult = z.infer<typeof searchResultSchema>;
