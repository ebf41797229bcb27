// Request/response schemas of the API-token routes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { nameText } from '../common/text';

export const roleSchema = z.enum(['admin', 'auditor', 'metrics']);

export const createTokenSchema = z
  .object({
    name: nameText().describe('Who or what the token is for'),
    role: roleSchema,
    expiresAt: z.iso.datetime({ offset: true }).optional().describe('Optional expiry (ISO 8601)'),
  })
  .strict();
export class CreateTokenDto extends createZodDto(createTokenSchema) {}

export const tokenViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  role: roleSchema,
  prefix: z.string().describe('First characters of the secret, for recognition'),
  createdAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
});
export class TokenViewDto extends createZodDto(tokenViewSchema) {}

export const createdTokenSchema = tokenViewSchema.extend({
  token: z.string().describe('The secret. Shown once; only its hash is stored.'),
});
export class CreatedTokenDto extends createZodDto(createdTokenSchema) {}

export type TokenView = z.infer<typeof tokenViewSchema>;

export class TokenPageDto extends createZodDto(pageSchema(tokenViewSchema)) {}

export const listTokensQuerySchema = paginationQuerySchema.extend({
  role: roleSchema.optional().describe('Only tokens with this role'),
  active: z.enum(['true', 'false']).optional().describe('true: only live tokens; false: only revoked or expired'),
});
export class ListTokensQueryDto extends createZodDto(listTokensQuerySchema) {}

export const tokenIdParamSchema = z.object({ id: z.uuid() });
export class TokenIdParamDto extends createZodDto(tokenIdParamSchema) {}
