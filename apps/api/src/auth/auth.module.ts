import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { GlobalAuthGuard } from './auth.guard';
import { AuthRateLimitService } from './auth-rate-limit.service';
import { AuthService } from './auth.service';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsRepository } from './credentials.repository';

@Global()
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [
    CredentialsRepository,
    AuthService,
    AuthRateLimitService,
    BearerStrategy,
    { provide: APP_GUARD, useClass: GlobalAuthGuard },
  ],
  exports: [AuthService],
})
export class AuthModule {}
