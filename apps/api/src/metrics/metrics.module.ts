// Metrics: process instruments (global, so any feature can count) and the /metrics route (HTTP server only).
import { Global, Module } from '@nestjs/common';
import { MetricsCollector } from './metrics.collector';
import { MetricsController } from './metrics.controller';
import { MetricsRepository } from './metrics.repository';
import { MetricsService } from './metrics.service';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsRepository, MetricsCollector],
  exports: [MetricsService],
})
export class MetricsModule {}
