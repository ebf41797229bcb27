// The key-encryption keys as one shared service: signing keys (SigningModule) and SSO refresh tokens (AuthModule) are
// sealed with the same KEK and rotate together.
import { Global, Module } from '@nestjs/common';
import { KeyVault } from './key-vault.service';

@Global()
@Module({ providers: [KeyVault], exports: [KeyVault] })
export class KeyVaultModule {}
