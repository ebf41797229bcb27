// Global guard: deny by default. Public routes pass; others need a valid credential (credential-sources.ts) and a
// matching rule. The credential is checked before the failure limit: a valid one always passes, an invalid or
// missing one counts as a failure of the client's address and gets 429 once that address is over the limit.
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { AUTH_RULE, type AuthedRequest, type AuthRule } from './auth.decorators';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AuthService } from './auth.service';
import { presentedCredential } from './credential-sources';

/** The 401 for missing or invalid credentials. */
export function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'Missing or invalid credentials', undefined, { 'www-authenticate': 'Bearer' });
}

@Injectable()
export class GlobalAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimit: AuthRateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AuthRule | undefined>(AUTH_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) throw new ApiError('forbidden', 'This route has no authorization rule');
    if (rule.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    const presented = presentedCredential(request.headers);
    const principal = presented ? await this.auth.authenticate(presented.secret) : null;
    if (!principal) throw await this.rateLimit.refuse(request.ip ?? 'unknown', unauthorized());
    request.principal = principal;
    if (rule.kind === 'agent') {
      if (principal.kind !== 'agent') throw new ApiError('forbidden', 'This route is for endpoint agents only');
      return true;
    }
    if (principal.kind !== 'user' || !rule.roles.includes(principal.role)) {
      throw new ApiError('forbidden', `This route requires the role ${rule.roles.join(' or ')}`);
    }
    return true;
  }
}
