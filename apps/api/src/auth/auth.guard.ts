// Global guard: deny by default. Public routes pass; others need a valid credential from one of the
// CREDENTIAL_SOURCES (Authorization header, or the SSO session cookie without one) and a matching rule.
// The credential is checked before the failure limit: a valid one always passes, an invalid or missing one counts as
// a failure of the client's address and gets 429 once that address is over the limit.
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { SessionAuthService } from '../sso/session-auth.service';
import { AUTH_RULE, type AuthedRequest, type AuthRule } from './auth.decorators';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AgentSignatureService, isSigned, signatureRequired } from './agent-signature.service';
import { AuthService } from './auth.service';
import { presentedCredential } from './credential-sources';
import type { Principal } from './principal';

// The 401 for missing or invalid credentials.
export function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'Missing or invalid credentials', undefined, { 'www-authenticate': 'Bearer' });
}

@Injectable()
export class GlobalAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimit: AuthRateLimitService,
    private readonly sessions: SessionAuthService,
    private readonly signatures: AgentSignatureService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AuthRule | undefined>(AUTH_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) throw new ApiError('forbidden', 'This route has no authorization rule');
    if (rule.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    if (rule.kind === 'agent-key') {
      request.endpointIdentity = await this.counted(request, this.signatures.verifyEndpointKey(request));
      return true;
    }
    if (rule.kind === 'agent') {
      request.principal = await this.agentOf(request);
      return true;
    }
    const principal = await this.principalOf(request);
    request.principal = principal;
    if (principal.kind !== 'user' || !rule.roles.includes(principal.role)) {
      throw new ApiError('forbidden', `This route requires the role ${rule.roles.join(' or ')}`);
    }
    return true;
  }

  // Awaits an identity check; a 401 counts as a failure of the client's address (429 once over the limit).
  private async counted<T>(request: AuthedRequest, check: Promise<T>): Promise<T> {
    try {
      return await check;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401)
        throw await this.rateLimit.refuse(request.ip ?? 'unknown', err);
      throw err;
    }
  }

  // The agent of an agent route: a session-signed request, or (legacy, endpoints without a key) a bearer credential.
  // People's credentials are valid but refused (403); no valid credential at all is told to sign (401).
  private async agentOf(request: AuthedRequest): Promise<Principal> {
    if (isSigned(request.headers)) return this.counted(request, this.signatures.verifySession(request));
    let principal: Principal;
    try {
      principal = await this.principalOf(request);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') throw signatureRequired();
      throw err;
    }
    if (principal.kind !== 'agent') throw new ApiError('forbidden', 'This route is for endpoint agents only');
    return principal;
  }

  // The request's principal, or the 401 (429 once the address is over the failure limit).
  private async principalOf(request: AuthedRequest): Promise<Principal> {
    const client = request.ip ?? 'unknown';
    // A signed agent request on a person's route: authenticated as the agent (then refused by role, 403).
    if (isSigned(request.headers) && request.headers.authorization === undefined) {
      return this.counted(request, this.signatures.verifySession(request));
    }
    const presented = presentedCredential(request.headers, { sessionCookie: this.sessions.cookies.session });
    if (presented?.source === 'session' && presented.secret) {
      try {
        // Idle/absolute timeouts, IdP re-check, and CSRF for writes (403, not counted as a failed credential).
        return await this.sessions.authenticate(request);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'unauthorized') throw await this.rateLimit.refuse(client, err);
        throw err;
      }
    }
    const principal =
      presented?.source === 'authorization' && presented.secret ? await this.auth.authenticate(presented.secret) : null;
    if (!principal) throw await this.rateLimit.refuse(client, unauthorized());
    return principal;
  }
}
