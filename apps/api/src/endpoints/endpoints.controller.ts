// Admin routes: enrolled endpoints.
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { UuidParamPipe } from '../common/validation.pipe';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import { EndpointPageDto, EndpointViewDto, ListEndpointsQueryDto, MoveEndpointDto } from './endpoints.dto';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@ApiBearerAuth()
@Controller('v1/endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List endpoints',
    description: 'Filter by group, state and platform; cursor-paginated by enrollment time.',
  })
  @Get()
  @ApiOkResponse({ type: EndpointPageDto })
  list(@Query() q: ListEndpointsQueryDto): Promise<EndpointPageDto> {
    return this.endpoints.list({ groupId: q.groupId, state: q.state, platform: q.platform }, q.limit, q.cursor);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One endpoint',
    description: 'The endpoint with its applied and target revision, counters and last status report.',
    errors: [404],
  })
  @Get(':id')
  @ApiOkResponse({ type: EndpointViewDto })
  get(@Param('id', UuidParamPipe) id: string): Promise<EndpointViewDto> {
    return this.endpoints.get(id);
  }

  @Roles('admin')
  @Post(':id/move')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Move an endpoint to another group',
    description: "Its agent is told at once, fetches its new signed assignment and applies the new group's bundle.",
  })
  @ApiOkResponse({
    type: EndpointViewDto,
    description:
      'The endpoint in its new group (assignmentEpoch + 1; moving to its own group changes nothing). Its agent ' +
      "learns the move from a new signed assignment statement and applies the new group's bundle; bundles of any " +
      'other group, and older assignments, are refused by the agent from then on.',
  })
  @ApiNotFoundResponse({ description: 'No such endpoint, or no such group.' })
  move(
    @Param('id', UuidParamPipe) id: string,
    @Body() body: MoveEndpointDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<EndpointViewDto> {
    return this.endpoints.move(id, body.groupId, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Revoke an endpoint',
    description: 'Its credential stops working at once on every instance; held long polls end with 401.',
    errors: [404],
  })
  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOkResponse({ type: EndpointViewDto, description: 'The endpoint; its agent gets 401 from now on.' })
  revoke(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EndpointViewDto> {
    return this.endpoints.revoke(id, ctx);
  }
}
