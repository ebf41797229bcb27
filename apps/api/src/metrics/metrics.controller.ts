// GET /metrics: Prometheus exposition, for a `metrics` token (or an admin or auditor).
import { Controller, Get, Header } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { MetricsCollector } from './metrics.collector';

@ApiTags('metrics')
@ApiBearerAuth()
@Controller()
export class MetricsController {
  constructor(private readonly collector: MetricsCollector) {}

  @Roles('admin', 'auditor', 'metrics')
  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'Prometheus metrics: HTTP traffic, long polls, releases, endpoints, ingest, findings, auth',
    description: 'The Prometheus text exposition format, for a scraper with a token of the metrics role.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4.', schema: { type: 'string' } })
  @ApiUnauthorizedResponse({ description: 'No, unknown, revoked or expired credentials.' })
  @ApiForbiddenResponse({ description: 'A token without the metrics, auditor or admin role.' })
  metrics(): Promise<string> {
    return this.collector.render();
  }
}
