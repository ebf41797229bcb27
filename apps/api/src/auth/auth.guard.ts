// Global guard: deny by default. Public routes pass; others need a valid bearer and a matching rule.
import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ApiError } from '../common/api-error';
import { AUTH_RULE, type AuthedRequest, type AuthRule } from './auth.decorators';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { SessionAuthService } from '../sso/session-auth.service';
import type { Principal } from './principal';

@Injectable()
export class GlobalAuthGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimit: AuthRateLimitService,
    private readonly sessions: SessionAuthService,
  ) {
    super({ session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AuthRule | undefined>(AUTH_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) throw new ApiError('forbidden', 'This route has no authorization rule');
    if (rule.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    const client = request.ip ?? 'unknown';
    const wait = this.rateLimit.blockedFor(client);
    if (wait > 0) throw tooManyFailures(wait);
    try {
      // A bearer header wins; without one, an SSO session cookie authenticates the request (writes need CSRF).
      if (!request.headers.authorization && this.sessions.hasSession(request)) {
        request.principal = await this.sessions.authenticate(request);
      } else {
        await super.canActivate(context);
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') {
        const retryAfter = await this.rateLimit.recordFailure(client);
        if (retryAfter > 0) throw tooManyFailures(retryAfter);
      }
      throw err;
    }
    const principal = request.principal;
    if (!principal) throw new ApiError('unauthorized', 'Missing or invalid credentials');
    if (rule.kind === 'agent') {
      if (principal.kind !== 'agent') throw new ApiError('forbidden', 'This route is for endpoint agents only');
      return true;
    }
    if (principal.kind !== 'user' || !rule.roles.includes(principal.role)) {
      throw new ApiError('forbidden', `This route requires the role ${rule.roles.join(' or ')}`);
    }
    return true;
  }

  // Passport's hook: attach the principal under `request.principal`, or 401 in the one error shape.
  override handleRequest<TUser = Principal>(
    err: unknown,
    user: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (err) throw err instanceof Error ? err : new Error('Authentication failed');
    if (!user)
      throw new ApiError('unauthorized', 'Missing or invalid credentials', undefined, { 'www-authenticate': 'Bearer' });
    context.switchToHttp().getRequest<AuthedRequest>().principal = user as unknown as Principal;
    return user;
  }
}

// The 429 answer to a client over the authentication-failure limit.
function tooManyFailures(retryAfterSec: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many failed authentication attempts from this address; retry in ${retryAfterSec} s`,
    { retryAfterSec },
    { 'retry-after': String(retryAfterSec) },
  );
}
