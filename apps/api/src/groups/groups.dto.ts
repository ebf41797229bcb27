// Request/response schemas of the endpoint-group routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { queryText } from '../common/query';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { freeText, nameText } from '../common/text';

const groupName = nameText(100).regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'letters, digits, space, . _ - only');

export const createGroupSchema = z
  .object({
    name: groupName.describe('Unique group name, e.g. "engineering"'),
    description: freeText(2000).optional(),
  })
  .strict();
export class CreateGroupDto extends createZodDto(createGroupSchema) {}

export const updateGroupSchema = z
  .object({ name: groupName.optional(), description: freeText(2000).optional() })
  .strict();
export class UpdateGroupDto extends createZodDto(updateGroupSchema) {}

export const groupViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  isDefault: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type GroupView = z.infer<typeof groupViewSchema>;
export class GroupViewDto extends createZodDto(groupViewSchema) {}
export class GroupPageDto extends createZodDto(pageSchema(groupViewSchema)) {}

export const listGroupsQuerySchema = paginationQuerySchema.extend({
  namePrefix: queryText(100).optional().describe('Only groups whose name starts with this'),
});
export class ListGroupsQueryDto extends createZodDto(listGroupsQuerySchema) {}

export const groupIdParamSchema = z.object({ id: z.uuid() });
export class GroupIdParamDto extends createZodDto(groupIdParamSchema) {}
