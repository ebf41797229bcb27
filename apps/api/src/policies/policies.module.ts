import { Module } from '@nestjs/common';
import { PoliciesController } from './policies.controller';
import { PoliciesRepository } from './policies.repository';
import { PoliciesService } from './policies.service';
import { VersionsController } from './versions.controller';
import { VersionsRepository } from './versions.repository';
import { VersionsService } from './versions.service';

@Module({
  controllers: [PoliciesController, VersionsController],
  providers: [PoliciesRepository, PoliciesService, VersionsRepository, VersionsService],
  exports: [PoliciesService, VersionsService],
})
export class PoliciesModule {}
