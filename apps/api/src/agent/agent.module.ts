import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { EnrollmentModule } from '../enrollment/enrollment.module';
import { ReleasesModule } from '../releases/releases.module';
import { AgentController } from './agent.controller';
import { AgentRepository } from './agent.repository';
import { AgentService } from './agent.service';
import { BundleCacheService } from './bundle-cache.service';
import { BundleRoute, ShadowBundleRoute } from './bundle.route';

@Module({
  imports: [EnrollmentModule, ReleasesModule, EndpointsModule],
  controllers: [AgentController],
  providers: [AgentRepository, AgentService, BundleCacheService, BundleRoute, ShadowBundleRoute],
})
export class AgentModule {}
