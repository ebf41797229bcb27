import { Global, Module } from '@nestjs/common';
import { SigningRepository } from './signing.repository';
import { SigningService } from './signing.service';

@Global()
@Module({ providers: [SigningRepository, SigningService], exports: [SigningService] })
export class SigningModule {}
