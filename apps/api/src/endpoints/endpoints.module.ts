import { Module } from '@nestjs/common';
import { ReleasesModule } from '../releases/releases.module';
import { AssignmentService } from './assignment.service';
import { EndpointsController } from './endpoints.controller';
import { EndpointsRepository } from './endpoints.repository';
import { EndpointsService } from './endpoints.service';

@Module({
  imports: [ReleasesModule],
  controllers: [EndpointsController],
  providers: [EndpointsRepository, EndpointsService, AssignmentService],
  exports: [AssignmentService, EndpointsService],
})
export class EndpointsModule {}
