// Auditor API over hook runs (roles auditor and admin).
import { Controller, Get, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import type { FastifyReply } from 'fastify';
import { ReadRoles } from '../auth/auth.decorators';
import {
  ExportQueryDto,
  FindingPageDto,
  FindingsQueryDto,
  HookRunDto,
  HookRunGetQueryDto,
  HookRunIdParamDto,
  HookRunPageDto,
  ListHookRunsQueryDto,
  StatsDto,
  StatsQueryDto,
  TopDto,
  TopQueryDto,
} from './hook-runs.dto';
import { HookRunsService } from './hook-runs.service';

@ApiTags('hook-runs')
@ApiBearerAuth()
@Controller('v1')
export class HookRunsController {
  constructor(private readonly runs: HookRunsService) {}

  @ReadRoles()
  @ApiDoc({ summary: 'List hook runs', description: 'Filtered, newest first, cursor-paginated.' })
  @Get('hook-runs')
  @ApiOkResponse({ type: HookRunPageDto, description: 'Newest first; pass nextCursor as cursor for the next page.' })
  async list(
    @Query() q: ListHookRunsQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | StreamableFile> {
    // The service serializes the page from its schema: sent as is (large pages as a stream).
    const type = 'application/json; charset=utf-8';
    void reply.type(type);
    const body = await this.runs.listJson(q);
    return typeof body === 'string' ? body : new StreamableFile(body, { type });
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Export hook runs',
    description:
      'Every matching run streamed as NDJSON (full records) or CSV, oldest first. An export answers an error status if the query fails before its first byte.',
  })
  @Get('hook-runs/export')
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiOkResponse({
    description: 'The filtered runs, oldest first, streamed (NDJSON: full records; CSV: columns).',
    content: {
      'application/x-ndjson': { schema: { type: 'string', description: 'One run record (JSON) per line' } },
      'text/csv': { schema: { type: 'string', description: 'Header row, then one run per row' } },
    },
  })
  async export(@Query() q: ExportQueryDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<StreamableFile> {
    const stream = await this.runs.export(q, q.format);
    const type = q.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson';
    void reply.header('content-type', type);
    return new StreamableFile(stream, {
      type,
      disposition: `attachment; filename="hook-runs.${q.format}"`,
    });
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Hook-run counts per hour or day',
    description: 'Counts by event, decision and status per UTC bucket (default range: the last 24 hours).',
  })
  @Get('hook-runs/stats')
  @ApiOkResponse({ type: StatsDto, description: 'Counts by event, decision and status per hour or day.' })
  stats(@Query() q: StatsQueryDto): Promise<StatsDto> {
    return this.runs.stats(q, q.bucket);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Top failing or blocking hooks',
    description:
      'The hooks with the most failures or timeouts (`kind=failing`) or deny/block decisions (`kind=blocking`) in the range (default: the last 24 hours).',
  })
  @Get('hook-runs/top')
  @ApiOkResponse({ type: TopDto, description: 'The hooks failing (failed/timed out) or blocking (deny/block) most.' })
  top(@Query() q: TopQueryDto): Promise<TopDto> {
    return this.runs.top(q, q.kind, q.limit);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One hook run',
    description:
      "The run's columns and the full record as uploaded. Records are keyed by endpoint and id: when runs of several " +
      'endpoints carry the id, pass `endpointId` (409 names them otherwise).',
    errors: [404, 409],
  })
  @Get('hook-runs/:id')
  @ApiOkResponse({ type: HookRunDto })
  @ApiNotFoundResponse({ description: 'No run with this id (of this endpoint).' })
  get(@Param() params: HookRunIdParamDto, @Query() q: HookRunGetQueryDto): Promise<HookRunDto> {
    return this.runs.get(params.id, q.endpointId);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Chain and enrollment findings',
    description:
      'Missing ranges, broken links, spool drops and duplicate machine ids (an enrollment that claimed a known ' +
      'machine id without proof of its key: details name the machine id and the endpoint it duplicates), newest first.',
  })
  @Get('findings')
  @ApiOkResponse({
    type: FindingPageDto,
    description: 'Findings (missing ranges, broken links, drops, duplicate machine ids).',
  })
  findings(@Query() q: FindingsQueryDto): Promise<FindingPageDto> {
    return this.runs.findings(q);
  }
}
