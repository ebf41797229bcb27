// Fleet-wide routes: every endpoint in one sortable, filterable list; bulk move and revoke; the overview's counts
// and what needs attention.
import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import { ApiDoc } from '../common/openapi';
import {
  AttentionDto,
  BulkMoveDto,
  BulkResultDto,
  BulkRevokeDto,
  FleetPageDto,
  FleetSummaryDto,
  ListFleetQueryDto,
} from './fleet.dto';
import { FleetService } from './fleet.service';

@ApiTags('fleet')
@ApiBearerAuth()
@Controller('v1/fleet')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List every endpoint of the fleet',
    description:
      'Every endpoint with its group, platform, agent version, applied revision, fleet state, last check-in and ' +
      'open findings; sorted by any of those columns (then id) and filtered server-side, in keyset pages ' +
      '(a cursor is valid for the sort it was issued for), with the total the filters match.',
  })
  @Get('endpoints')
  @ApiOkResponse({ type: FleetPageDto })
  list(@Query() q: ListFleetQueryDto): Promise<FleetPageDto> {
    return this.fleet.list(q);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Move endpoints to a group',
    description:
      'Each endpoint moves as POST /v1/endpoints/:id/move does (its own endpoint.move audit entry, its agent told ' +
      'at once); those already in the group are left as they are, unknown ids are reported. 404 when the group ' +
      'does not exist (nothing moved).',
    errors: [404],
  })
  @Post('endpoints/move')
  @HttpCode(200)
  @ApiOkResponse({ type: BulkResultDto })
  move(@Body() body: BulkMoveDto, @AuditCtx() ctx: AuditContext): Promise<BulkResultDto> {
    return this.fleet.bulkMove(body.ids, body.groupId, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Revoke endpoints',
    description:
      'Each endpoint is revoked as POST /v1/endpoints/:id/revoke does (its own endpoint.revoke audit entry, its ' +
      'credential refused at once on every instance); already revoked ones are left, unknown ids are reported.',
  })
  @Post('endpoints/revoke')
  @HttpCode(200)
  @ApiOkResponse({ type: BulkResultDto })
  revoke(@Body() body: BulkRevokeDto, @AuditCtx() ctx: AuditContext): Promise<BulkResultDto> {
    return this.fleet.bulkRevoke(body.ids, ctx);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Fleet counts',
    description:
      'Endpoints by fleet state (every state), and every group (those without endpoints too) with its admitted, ' +
      'unrevoked endpoints by applied policy version.',
  })
  @Get('summary')
  @ApiOkResponse({ type: FleetSummaryDto })
  summary(): Promise<FleetSummaryDto> {
    return this.fleet.summary();
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'What needs attention',
    description:
      'Failed, stale (silent > 24 h), never-seen and pending-approval endpoints by name (the first 10 of each, with ' +
      'totals), releases rolling or paused with their group, policy and pause reason, and open findings by kind.',
  })
  @Get('attention')
  @ApiOkResponse({ type: AttentionDto })
  attention(): Promise<AttentionDto> {
    return this.fleet.attention();
  }
}
