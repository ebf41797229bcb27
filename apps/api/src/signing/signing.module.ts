import { Global, Module } from '@nestjs/common';
import { SigningKeysController } from './signing-keys.controller';
import { SigningRepository } from './signing.repository';
import { SigningService } from './signing.service';

@Global()
@Module({
  controllers: [SigningKeysController],
  providers: [SigningRepository, SigningService],
  exports: [SigningService],
})
export class SigningModule {}
