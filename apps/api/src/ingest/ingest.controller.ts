// Agent upload of hook-run records (endpoint credential; the endpoint id comes from it, never from the body).
import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiSecurity,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AgentRoute, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { DROPPED_HEADER, UploadAcceptedDto } from './ingest.dto';
import { NDJSON } from './ingest.body';
import { IngestService } from './ingest.service';

@ApiTags('agent')
@ApiBearerAuth()
@Controller('v1/agent')
export class IngestController {
  constructor(private readonly ingest: IngestService) {}

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiDoc({
    summary: 'Upload hook-run records',
    description:
      'Gzip NDJSON or a JSON array; 202 means queued for ingest. 400 names the line and field; 413 beyond the inflated size cap; 429/503 with Retry-After mean keep the spool and retry.',
    errors: [413, 415, 503],
  })
  @Post('hook-runs')
  @HttpCode(202)
  @ApiConsumes(NDJSON, 'application/json')
  @ApiBody({
    description:
      'Run records, one JSON object per line (NDJSON, optionally Content-Encoding: gzip) or a JSON array. ' +
      `Header ${DROPPED_HEADER}: total records the spool dropped so far.`,
    schema: { type: 'string' },
  })
  @ApiAcceptedResponse({ type: UploadAcceptedDto, description: 'Queued for ingest; the agent may delete the batch.' })
  @ApiBadRequestResponse({ description: 'A record is invalid: the error names the line and field.' })
  @ApiTooManyRequestsResponse({ description: 'Ingest queue too deep: keep the spool, retry after Retry-After.' })
  @ApiServiceUnavailableResponse({ description: 'Queue (Redis) unavailable: keep the spool, retry after Retry-After.' })
  upload(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Headers(DROPPED_HEADER) dropped: string | undefined,
  ): Promise<UploadAcceptedDto> {
    if (principal.kind !== 'agent') throw new Error('unreachable: agent route');
    return this.ingest.accept({ endpointId: principal.endpointId, groupId: principal.groupId }, body, dropped);
  }
}
