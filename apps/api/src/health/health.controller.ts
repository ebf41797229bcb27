// Liveness and readiness probes (public).
import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { Public } from '../auth/auth.decorators';
import { LivenessDto, ReadinessDto } from './health.dto';
import { HealthService, type Readiness } from './health.service';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Public()
  @ApiDoc({ summary: 'Liveness probe', description: '200 while the process runs; checks nothing else.' })
  @Get('healthz')
  @HttpCode(200)
  @ApiOkResponse({ type: LivenessDto, description: 'The process is up.' })
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Public()
  @ApiDoc({
    summary: 'Readiness probe',
    description:
      '200 when both PostgreSQL pools (write and read) and Redis answer; 503 naming each failing dependency.',
    errors: [503],
  })
  @Get('readyz')
  @ApiOkResponse({ type: ReadinessDto, description: 'PostgreSQL and Redis both answer.' })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down; the error names it.' })
  readyz(): Promise<Readiness> {
    return this.health.readiness();
  }
}
