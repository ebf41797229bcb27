// Authorization metadata: every route must carry exactly one rule (Public, Roles or AgentRoute).
import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal, UserRole } from './principal';

export const AUTH_RULE = 'hookwarden:auth-rule';

export type AuthRule = { kind: 'public' } | { kind: 'roles'; roles: UserRole[] } | { kind: 'agent' };

/** No credentials needed (health probes, docs, enrollment with its own secret). */
export const Public = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'public' } satisfies AuthRule);

/** A person's token with one of these roles. */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'roles', roles } satisfies AuthRule);

/** Shorthand: read-only routes open to auditors and admins. */
export const ReadRoles = (): MethodDecorator & ClassDecorator => Roles('admin', 'auditor');

/** An endpoint's agent credential; the handler must scope itself to that endpoint. */
export const AgentRoute = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'agent' } satisfies AuthRule);

export type AuthedRequest = FastifyRequest & { principal?: Principal };

/** The authenticated caller of this request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return req.principal;
});
