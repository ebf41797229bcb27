// Fleet-wide endpoint views and bulk actions.
import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { FleetController } from './fleet.controller';
import { FleetRepository } from './fleet.repository';
import { FleetService } from './fleet.service';

@Module({ imports: [EndpointsModule], controllers: [FleetController], providers: [FleetService, FleetRepository] })
export class FleetModule {}
