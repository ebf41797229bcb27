// Admin routes: releases of a group and their staged rollout.
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiBody } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { UuidParamPipe } from '../common/validation.pipe';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import {
  ShadowReportDto,
  AbortedDto,
  CreateReleaseDto,
  ReleaseActionDto,
  ReleaseListDto,
  PromotedDto,
  PromoteReleaseDto,
  ReleaseViewDto,
  RolloutDto,
} from './releases.dto';
import { ReleasesService } from './releases.service';

@ApiTags('releases')
@ApiBearerAuth()
@Controller('v1')
export class ReleasesController {
  constructor(private readonly releases: ReleasesService) {}

  @Roles('admin')
  @ApiDoc({
    summary: 'Release a policy version to a group',
    description:
      'Immediately, in staged rings with an automatic failure gate, or as a shadow release: delivered beside the ' +
      'enforced policy in the same rings, its hooks only observed (GET /v1/releases/:id/shadow-report) until promote ' +
      'or abort. 409: a staged release while another enforced rollout is in progress, a shadow release while the ' +
      "group's shadow release is live (promote or abort it first), or a version every agent would refuse. 428: the " +
      'impact preview requires previewAck (enforced releases; a shadow release is acknowledged at promote).',
    errors: [404, 409, 428],
  })
  @Post('groups/:groupId/releases')
  @ApiCreatedResponse({
    type: ReleaseViewDto,
    description: 'The release; waiting agents of the group are woken at once.',
  })
  create(
    @Param('groupId', UuidParamPipe) groupId: string,
    @Body() body: CreateReleaseDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<ReleaseViewDto> {
    return this.releases.create(groupId, body, ctx);
  }

  @ReadRoles()
  @ApiDoc({
    summary: "List a group's releases",
    description: 'Newest first, with their state and ring progress.',
    errors: [404],
  })
  @Get('groups/:groupId/releases')
  @ApiOkResponse({ type: ReleaseListDto })
  list(@Param('groupId', UuidParamPipe) groupId: string): Promise<ReleaseListDto> {
    return this.releases.list(groupId);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One release',
    description: 'The release with its policy version, rings, gate settings and state.',
    errors: [404],
  })
  @Get('releases/:id')
  @ApiOkResponse({ type: ReleaseViewDto })
  get(@Param('id', UuidParamPipe) id: string): Promise<ReleaseViewDto> {
    return this.releases.get(id);
  }

  @ReadRoles()
  @ApiDoc({
    summary: "A release's rollout progress and gate",
    description: 'Endpoints per ring and state, and the apply and hook failure rates the gate watches.',
    errors: [404],
  })
  @Get('releases/:id/rollout')
  @ApiOkResponse({ type: RolloutDto })
  rollout(@Param('id', UuidParamPipe) id: string): Promise<RolloutDto> {
    return this.releases.rollout(id);
  }

  @ReadRoles()
  @ApiDoc({
    summary: "A shadow release's report: its hooks' decisions against the enforced ones",
    description:
      'Over the events its shadow layer ran on: would-newly-deny, would-stop-denying, rewrites, errors and timeouts, by hook, endpoint and tool command, with sample events naming the runs.',
    errors: [404],
  })
  @Get('releases/:id/shadow-report')
  @ApiOkResponse({ type: ShadowReportDto })
  shadowReport(@Param('id', UuidParamPipe) id: string): Promise<ShadowReportDto> {
    return this.releases.shadowReport(id);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Pause a staged release',
    description: 'No further ring is started until it is resumed; endpoints keep what they have.',
    errors: [404, 409],
  })
  @Post('releases/:id/pause')
  @HttpCode(200)
  @ApiOkResponse({ type: ReleaseViewDto })
  @ApiBody({ type: ReleaseActionDto, required: false })
  pause(
    @Param('id', UuidParamPipe) id: string,
    // Typed as the DTO (a union would hide the class from the validation pipe); a bare POST leaves it undefined.
    @Body() body: ReleaseActionDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<ReleaseViewDto> {
    return this.releases.pause(id, (body as ReleaseActionDto | undefined)?.reason, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Resume a paused release',
    description: 'The rollout continues from the current ring.',
    errors: [404, 409],
  })
  @Post('releases/:id/resume')
  @HttpCode(200)
  @ApiOkResponse({ type: ReleaseViewDto })
  resume(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<ReleaseViewDto> {
    return this.releases.resume(id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Advance a staged release to its next ring',
    description: 'Starts the next ring now instead of waiting for the gate.',
    errors: [404, 409],
  })
  @Post('releases/:id/advance')
  @HttpCode(200)
  @ApiOkResponse({ type: ReleaseViewDto })
  advance(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<ReleaseViewDto> {
    return this.releases.advance(id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Promote a shadow release to a staged release of the same version',
    description:
      'The shadow layer is no longer delivered, and the version rolls out as the enforced policy: rings (default the ' +
      "shadow release's), gates and the impact preview's acknowledgement as for any staged release. Audited with the " +
      'shadow report summary at this moment. 409: not a live shadow release, or another enforced rollout is in ' +
      'progress; 428: the impact preview requires previewAck.',
    errors: [404, 409, 428],
  })
  @Post('releases/:id/promote')
  @HttpCode(200)
  @ApiOkResponse({ type: PromotedDto, description: 'The promoted shadow release and the staged release it became.' })
  @ApiBody({ type: PromoteReleaseDto, required: false })
  promote(
    @Param('id', UuidParamPipe) id: string,
    // A bare POST leaves it undefined (see pause).
    @Body() body: PromoteReleaseDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<PromotedDto> {
    return this.releases.promote(id, body, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Abort a release and roll back',
    description:
      "Endpoints go back to the group's previous release (answered as `rollback`). A shadow release (rolling, paused " +
      'or completed) ends instead: its shadow layer is removed from every endpoint and `rollback` is null; audited ' +
      'with the shadow report summary at this moment.',
    errors: [404, 409],
  })
  @Post('releases/:id/abort')
  @HttpCode(200)
  @ApiOkResponse({
    type: AbortedDto,
    description: 'The aborted release and the rollback release re-issuing the previous bundle.',
  })
  abort(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<AbortedDto> {
    return this.releases.abort(id, ctx);
  }
}
