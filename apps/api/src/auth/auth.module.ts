import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { GlobalAuthGuard } from './auth.guard';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AuthService } from './auth.service';
import { CredentialsRepository } from './credentials.repository';
import { AgentSessionService } from './agent-session.service';
import { AgentSignatureService } from './agent-signature.service';
import { NonceStore } from './nonce-store.service';
import { OidcClientService } from '../sso/oidc-client.service';
import { SessionAuthService } from '../sso/session-auth.service';
import { SessionsRepository } from '../sso/sessions.repository';
import { KeyVaultModule } from '../signing/key-vault.module';

@Global()
@Module({
  // SSO refresh tokens are sealed under the KEK.
  imports: [KeyVaultModule],
  providers: [
    CredentialsRepository,
    AuthService,
    NonceStore,
    AgentSessionService,
    AgentSignatureService,
    AuthRateLimitService,
    OidcClientService,
    SessionsRepository,
    SessionAuthService,
    { provide: APP_GUARD, useClass: GlobalAuthGuard },
  ],
  exports: [
    AuthService,
    AgentSessionService,
    AgentSignatureService,
    AuthRateLimitService,
    OidcClientService,
    SessionsRepository,
    SessionAuthService,
  ],
})
export class AuthModule {}
