// Metrics: the process instruments (MetricsCoreModule, global, so any feature and the CLIs can count) and the
// /metrics route with its fleet queries (MetricsModule).
import { Global, Module } from '@nestjs/common';
import { MetricsCollector } from './metrics.collector';
import { MetricsController } from './metrics.controller';
import { MetricsRepository } from './metrics.repository';
import { MetricsService } from './metrics.service';
import { StreamingModule } from '../streaming/streaming.module';

@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsCoreModule {}

@Module({
  imports: [StreamingModule],
  controllers: [MetricsController],
  providers: [MetricsRepository, MetricsCollector],
})
export class MetricsModule {}
