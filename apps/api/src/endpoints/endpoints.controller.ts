// Admin routes: enrolled endpoints.
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { UuidParamPipe } from '../common/validation.pipe';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import {
  EndpointDecisionDto,
  EndpointPageDto,
  EndpointViewDto,
  ListEndpointsQueryDto,
  MoveEndpointDto,
} from './endpoints.dto';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@ApiBearerAuth()
@Controller('v1/endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List endpoints',
    description:
      'Filter by group, state, platform and admission (`admission=pending`: duplicate machine ids awaiting an ' +
      "admin's decision); cursor-paginated by enrollment time.",
  })
  @Get()
  @ApiOkResponse({ type: EndpointPageDto })
  list(@Query() q: ListEndpointsQueryDto): Promise<EndpointPageDto> {
    return this.endpoints.list(
      { groupId: q.groupId, state: q.state, platform: q.platform, admission: q.admission },
      q.limit,
      q.cursor,
    );
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
    description:
      'Its credential stops working at once on every instance; held long polls end with 401. Final: neither a ' +
      'new enrollment nor anything else brings it back, only an admin re-admission (POST /v1/endpoints/:id/readmit).',
    errors: [404],
  })
  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOkResponse({ type: EndpointViewDto, description: 'The endpoint; its agent gets 401 from now on.' })
  revoke(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EndpointViewDto> {
    return this.endpoints.revoke(id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Approve a pending endpoint',
    description:
      'A pending endpoint (an enrollment that claimed a known machine id without proof of its key) becomes active; ' +
      'the endpoint it duplicates is retired in the same transaction and its credential stops working at once on ' +
      'every instance. The duplicate finding is resolved; audited as endpoint.approve and endpoint.retire. 409 when ' +
      'the endpoint is not pending, is revoked, or another admitted endpoint holds its machine id.',
    errors: [404, 409],
  })
  @Post(':id/approve')
  @HttpCode(200)
  @ApiOkResponse({ type: EndpointDecisionDto, description: 'The approved endpoint and the one it retired.' })
  approve(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EndpointDecisionDto> {
    return this.endpoints.approve(id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Reject a pending endpoint',
    description:
      'A pending endpoint becomes rejected (final): it never gets a working credential, the endpoint it duplicates ' +
      'is left as it is. The duplicate finding is resolved; audited as endpoint.reject. 409 when it is not pending.',
    errors: [404, 409],
  })
  @Post(':id/reject')
  @HttpCode(200)
  @ApiOkResponse({ type: EndpointViewDto, description: 'The rejected endpoint.' })
  reject(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EndpointViewDto> {
    return this.endpoints.reject(id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Re-admit a revoked endpoint',
    description:
      'Revocation is final except for this: the endpoint comes back (revokedAt cleared) with the credential or key it ' +
      'had; audited as endpoint.readmit. 409 when it is not revoked, was not admitted (pending, rejected, retired), ' +
      'or another admitted endpoint now holds its machine id.',
    errors: [404, 409],
  })
  @Post(':id/readmit')
  @HttpCode(200)
  @ApiOkResponse({ type: EndpointViewDto, description: 'The endpoint, no longer revoked.' })
  readmit(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EndpointViewDto> {
    return this.endpoints.readmit(id, ctx);
  }
}
