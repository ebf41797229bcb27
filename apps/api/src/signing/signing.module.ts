import { Global, Module } from '@nestjs/common';
import { KeyVaultModule } from './key-vault.module';
import { SigningKeysController } from './signing-keys.controller';
import { SigningController } from './signing.controller';
import { SigningRepository } from './signing.repository';
import { SigningService } from './signing.service';

@Global()
@Module({
  imports: [KeyVaultModule],
  controllers: [SigningKeysController, SigningController],
  providers: [SigningRepository, SigningService],
  exports: [SigningService],
})
export class SigningModule {}
