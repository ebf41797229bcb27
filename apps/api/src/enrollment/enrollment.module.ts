import { Module } from '@nestjs/common';
import { ReleasesModule } from '../releases/releases.module';
import { EnrollmentController } from './enrollment.controller';
import { EnrollmentRepository } from './enrollment.repository';
import { EnrollmentService } from './enrollment.service';

@Module({
  imports: [ReleasesModule],
  controllers: [EnrollmentController],
  providers: [EnrollmentRepository, EnrollmentService],
  exports: [EnrollmentService],
})
export class EnrollmentModule {}
