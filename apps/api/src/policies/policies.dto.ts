// Request/response schemas of the policy routes (a policy is a named requirements.toml owned by one group).
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { queryText, uuidParam } from '../common/query';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { freeText, nameText } from '../common/text';

const policyName = nameText(200);

export const createPolicySchema = z
  .object({
    name: policyName.describe('Unique policy name'),
    description: freeText(2000).optional(),
    groupId: z.uuid().optional().describe('Owning group (default: the default group)'),
  })
  .strict();
export class CreatePolicyDto extends createZodDto(createPolicySchema) {}

export const updatePolicySchema = z
  .object({
    name: policyName.optional(),
    description: freeText(2000).optional(),
    groupId: z.uuid().optional().describe('Move the policy to another group'),
  })
  .strict();
export class UpdatePolicyDto extends createZodDto(updatePolicySchema) {}

export const policyViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  groupId: z.uuid(),
  latestVersion: z.number().int().describe('Number of the newest version (0 when none yet)'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type PolicyView = z.infer<typeof policyViewSchema>;
export class PolicyViewDto extends createZodDto(policyViewSchema) {}
export class PolicyPageDto extends createZodDto(pageSchema(policyViewSchema)) {}

export const listPoliciesQuerySchema = paginationQuerySchema.extend({
  groupId: uuidParam().optional().describe('Only policies of this group'),
  namePrefix: queryText(200).optional().describe('Only policies whose name starts with this'),
});
export class ListPoliciesQueryDto extends createZodDto(listPoliciesQuerySchema) {}

export const policyIdParamSchema = z.object({ id: z.uuid() });
export class PolicyIdParamDto extends createZodDto(policyIdParamSchema) {}
