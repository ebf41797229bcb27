import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module';
import { BundleEventsService } from './bundle-events.service';
import { ReleasesController } from './releases.controller';
import { ReleasesRepository } from './releases.repository';
import { ReleasesService } from './releases.service';

@Module({
  imports: [InventoryModule],
  controllers: [ReleasesController],
  providers: [ReleasesRepository, ReleasesService, BundleEventsService],
  exports: [ReleasesService, BundleEventsService],
})
export class ReleasesModule {}
