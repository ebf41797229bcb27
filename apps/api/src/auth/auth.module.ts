import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { GlobalAuthGuard } from './auth.guard';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AuthService } from './auth.service';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsRepository } from './credentials.repository';
import { OidcClientService } from '../sso/oidc-client.service';
import { SessionAuthService } from '../sso/session-auth.service';
import { SessionsRepository } from '../sso/sessions.repository';

@Global()
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [
    CredentialsRepository,
    AuthService,
    AuthRateLimitService,
    BearerStrategy,
    OidcClientService,
    SessionsRepository,
    SessionAuthService,
    { provide: APP_GUARD, useClass: GlobalAuthGuard },
  ],
  exports: [AuthService, OidcClientService, SessionsRepository, SessionAuthService],
})
export class AuthModule {}
