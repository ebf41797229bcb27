// Authorization metadata: every route must carry exactly one rule (Public, Roles or AgentRoute).
import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { EndpointIdentity } from './credentials.repository';
import type { Principal, UserRole } from './principal';

export const AUTH_RULE = 'hookwarden:auth-rule';

export type AuthRule =
  { kind: 'public' } | { kind: 'roles'; roles: UserRole[] } | { kind: 'agent' } | { kind: 'agent-key' };

/** No credentials needed (health probes, docs, enrollment with its own secret). */
export const Public = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'public' } satisfies AuthRule);

/** A person's token with one of these roles. */
export const Roles = (...roles: UserRole[]): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'roles', roles } satisfies AuthRule);

/** Shorthand: read-only routes open to auditors and admins. */
export const ReadRoles = (): MethodDecorator & ClassDecorator => Roles('admin', 'auditor');

/** A request signed with the endpoint's own key (Ed25519): only POST /v1/agent/session, which mints sessions. */
export const AgentKeyRoute = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'agent-key' } satisfies AuthRule);

/** A session-signed agent request (or a legacy endpoint's bearer); the handler must scope itself to that endpoint. */
export const AgentRoute = (): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_RULE, { kind: 'agent' } satisfies AuthRule);

export type AuthedRequest = FastifyRequest & {
  principal?: Principal;
  /** SHA-256 of the raw body bytes, set by the content parsers (signed requests' Content-Digest is checked with it). */
  bodyDigest?: Buffer;
  /** The endpoint whose own key signed the request (agent-key routes). */
  endpointIdentity?: EndpointIdentity;
};

/** The endpoint whose key signed this request (agent-key routes only). */
export const SigningEndpoint = createParamDecorator((_: unknown, ctx: ExecutionContext): EndpointIdentity => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.endpointIdentity) throw new Error('SigningEndpoint used on a route without an endpoint-key signature');
  return req.endpointIdentity;
});

/** The authenticated caller of this request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return req.principal;
});
