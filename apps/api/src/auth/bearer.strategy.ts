// Passport bearer strategy: `Authorization: Bearer <secret>` → principal.
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { AuthService } from './auth.service';
import type { Principal } from './principal';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly auth: AuthService) {
    super();
  }

  // Passport calls this with the bearer secret; false means 401.
  async validate(token: string): Promise<Principal | false> {
    return (await this.auth.authenticate(token)) ?? false;
  }
}
