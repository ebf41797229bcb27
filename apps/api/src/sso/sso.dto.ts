// Request/response schemas of sign-in (OIDC), sessions, /v1/me and personal tokens.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { queryText } from '../common/query';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { isStorableText, nameText } from '../common/text';
import { roleSchema, tokenViewSchema } from '../tokens/tokens.dto';
import { normaliseReturnTo } from './return-to';

/** Where the browser may be sent after sign-in: a path on this server only (no scheme, no host, no `//`),
 *  normalised (dot segments resolved, repeated slashes collapsed; see return-to.ts). */
const returnTo = z
  .string()
  .max(2000)
  .regex(/^\/(?![/\\])[^\\\s]*$/, 'must be a path on this server, such as /console/')
  .refine(isStorableText, 'must be well-formed Unicode')
  .transform((raw, ctx) => {
    const r = normaliseReturnTo(raw);
    if (r.ok) return r.path;
    ctx.addIssue({ code: 'custom', message: r.message });
    return z.NEVER;
  });

export const loginQuerySchema = z.object({
  returnTo: returnTo
    .optional()
    .describe(
      'Path to open after sign-in (default `/console/`), normalised: dot segments resolved, repeated slashes collapsed; ' +
        'one climbing above `/` or out of the `/console/` it names is refused',
    ),
});
export class LoginQueryDto extends createZodDto(loginQuerySchema) {}

export const callbackQuerySchema = z
  .object({
    code: queryText(4096).optional(),
    state: queryText(512).optional(),
    iss: queryText(2000).optional(),
    error: z.string().max(200).optional(),
    error_description: z.string().max(2000).optional(),
    session_state: z.string().max(2000).optional(),
  })
  .catchall(z.string().max(4096));
export class CallbackQueryDto extends createZodDto(callbackQuerySchema) {}

export const personSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
});

export const meSchema = z.object({
  kind: z.enum(['session', 'token']).describe('How this request was authenticated'),
  role: roleSchema,
  name: z.string(),
  person: personSchema.nullable().describe('The signed-in person (SSO sessions and personal tokens)'),
  session: z
    .object({
      id: z.uuid(),
      createdAt: z.iso.datetime(),
      expiresAt: z.iso.datetime().describe('Absolute end of the session'),
      idleExpiresAt: z.iso.datetime().describe('When the session ends without further requests'),
      refreshedAt: z.iso.datetime().describe('When the role was last re-checked at the identity provider'),
      csrfToken: z.string().describe('Send as the `x-csrf-token` header on every cookie-authenticated write'),
    })
    .nullable(),
  token: z.object({ id: z.uuid(), expiresAt: z.iso.datetime().nullable() }).nullable(),
});
export class MeDto extends createZodDto(meSchema) {}

export const authConfigSchema = z.object({
  sso: z.object({
    enabled: z.boolean(),
    loginUrl: z.string().nullable().describe('Start of the browser sign-in (append `?returnTo=/path`)'),
  }),
  sessionCookie: z
    .boolean()
    .describe('Whether this request carries a session cookie (not checked: GET /v1/me says whether it is live)'),
});
export class AuthConfigDto extends createZodDto(authConfigSchema) {}

export const logoutResultSchema = z.object({
  signedOut: z.boolean().describe('Whether a live session was ended'),
  endSessionUrl: z.string().nullable().describe("Open this to end the identity provider's session too"),
});
export class LogoutResultDto extends createZodDto(logoutResultSchema) {}

export const sessionViewSchema = z.object({
  id: z.uuid(),
  issuer: z.string(),
  subject: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  role: roleSchema,
  createdAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  refreshedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
  revokedReason: z.string().nullable(),
  clientIp: z.string().nullable(),
  userAgent: z.string().nullable(),
});
export type SessionView = z.infer<typeof sessionViewSchema>;
export class SessionViewDto extends createZodDto(sessionViewSchema) {}
export class SessionPageDto extends createZodDto(pageSchema(sessionViewSchema)) {}

export const listSessionsQuerySchema = paginationQuerySchema.extend({
  active: z.enum(['true', 'false']).optional().describe('true: only live sessions; false: only ended ones'),
  subject: nameText(500).optional().describe("Only this person's sessions (IdP subject)"),
});
export class ListSessionsQueryDto extends createZodDto(listSessionsQuerySchema) {}

export const sessionIdParamSchema = z.object({ id: z.uuid() });
export class SessionIdParamDto extends createZodDto(sessionIdParamSchema) {}

export const createPersonalTokenSchema = z
  .object({
    name: nameText().describe('What the token is for, e.g. "laptop CLI"'),
    ttlSec: z
      .number()
      .int()
      .min(60)
      .optional()
      .describe('Lifetime in seconds (default 8 h, at most the server maximum)'),
  })
  .strict();
export class CreatePersonalTokenDto extends createZodDto(createPersonalTokenSchema) {}

export const personalTokenViewSchema = tokenViewSchema.extend({
  sessionId: z.uuid().nullable().describe('The session that minted it'),
});
export type PersonalTokenView = z.infer<typeof personalTokenViewSchema>;
export class PersonalTokenViewDto extends createZodDto(personalTokenViewSchema) {}
export class PersonalTokenPageDto extends createZodDto(pageSchema(personalTokenViewSchema)) {}
export const createdPersonalTokenSchema = personalTokenViewSchema.extend({
  token: z.string().describe('The secret, for `hookwarden login --token`. Shown once; only its hash is stored.'),
});
export class CreatedPersonalTokenDto extends createZodDto(createdPersonalTokenSchema) {}

export const tokenIdParamSchema = z.object({ id: z.uuid() });
export class PersonalTokenIdParamDto extends createZodDto(tokenIdParamSchema) {}
