import { Global, Module } from '@nestjs/common';
import { KeyVault } from './key-vault.service';
import { SigningKeysController } from './signing-keys.controller';
import { SigningController } from './signing.controller';
import { SigningRepository } from './signing.repository';
import { SigningService } from './signing.service';

@Global()
@Module({
  controllers: [SigningKeysController, SigningController],
  providers: [SigningRepository, SigningService, KeyVault],
  exports: [SigningService],
})
export class SigningModule {}
