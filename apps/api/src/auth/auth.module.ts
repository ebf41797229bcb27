import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { GlobalAuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsRepository } from './credentials.repository';

@Global()
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [CredentialsRepository, AuthService, BearerStrategy, { provide: APP_GUARD, useClass: GlobalAuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
