import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { GlobalAuthGuard } from './auth.guard';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AuthService } from './auth.service';
import { CredentialsRepository } from './credentials.repository';

@Global()
@Module({
  providers: [
    CredentialsRepository,
    AuthService,
    AuthRateLimitService,
    { provide: APP_GUARD, useClass: GlobalAuthGuard },
  ],
  exports: [AuthService, AuthRateLimitService],
})
export class AuthModule {}
