import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { ReleasesModule } from '../releases/releases.module';
import { EnrollmentController } from './enrollment.controller';
import { EnrollmentRepository } from './enrollment.repository';
import { EnrollmentService } from './enrollment.service';

@Module({
  imports: [ReleasesModule, EndpointsModule],
  controllers: [EnrollmentController],
  providers: [EnrollmentRepository, EnrollmentService],
  exports: [EnrollmentService],
})
export class EnrollmentModule {}
