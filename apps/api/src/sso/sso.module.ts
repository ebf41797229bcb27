// Single sign-on for people: OIDC sign-in, sessions, /v1/me and personal tokens (session authentication itself is
// part of the global AuthModule).
import { Module } from '@nestjs/common';
import { MeController } from './me.controller';
import { SessionsController } from './sessions.controller';
import { SsoController } from './sso.controller';
import { SsoService } from './sso.service';

@Module({
  controllers: [SsoController, MeController, SessionsController],
  providers: [SsoService],
})
export class SsoModule {}
