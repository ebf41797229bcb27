// `@AuditCtx()`: the actor, request id and client address of this request, for audit entries.
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthedRequest } from '../auth/auth.decorators';
import { actorName, actorRole } from '../auth/principal';
import type { AuditContext } from './audit-log.writer';

// Builds the audit context of a request (anonymous callers are recorded as such).
export function auditContextOf(req: AuthedRequest): AuditContext {
  const p = req.principal;
  const person = p?.kind === 'user' ? p.person : undefined;
  return {
    actorId: p ? (p.kind === 'user' ? p.tokenId : p.endpointId) : null,
    actorName: p ? actorName(p) : 'anonymous',
    role: p ? actorRole(p) : 'anonymous',
    requestId: String(req.id),
    clientIp: req.ip ?? null,
    ...(person ? { person } : {}),
  };
}

export const AuditCtx = createParamDecorator((_: unknown, ctx: ExecutionContext): AuditContext =>
  auditContextOf(ctx.switchToHttp().getRequest<AuthedRequest>()),
);
