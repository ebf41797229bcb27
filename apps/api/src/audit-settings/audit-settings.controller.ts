// Capture policy per group (admin writes, auditors read) and the agent's view of its own.
import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AgentRoute, CurrentPrincipal, ReadRoles, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { AuditSettingsDto, GroupIdParamDto } from './audit-settings.dto';
import { AuditSettingsService } from './audit-settings.service';

@ApiTags('audit-settings')
@ApiBearerAuth()
@Controller('v1')
export class AuditSettingsController {
  constructor(private readonly settings: AuditSettingsService) {}

  @ReadRoles()
  @ApiDoc({
    summary: "A group's capture policy",
    description: 'What endpoints of the group capture in run records: none, digests or redacted excerpts.',
    errors: [404],
  })
  @Get('groups/:id/audit-settings')
  @ApiOkResponse({ type: AuditSettingsDto })
  @ApiNotFoundResponse({ description: 'Unknown group.' })
  get(@Param() params: GroupIdParamDto): Promise<AuditSettingsDto> {
    return this.settings.get(params.id);
  }

  @Roles('admin')
  @ApiDoc({
    summary: "Set a group's capture policy",
    description: 'Capture `none`, `digests` or `excerpts` with redaction patterns; the change is audited.',
    errors: [404],
  })
  @Put('groups/:id/audit-settings')
  @ApiOkResponse({ type: AuditSettingsDto })
  @ApiNotFoundResponse({ description: 'Unknown group.' })
  put(
    @Param() params: GroupIdParamDto,
    @Body() body: AuditSettingsDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<AuditSettingsDto> {
    return this.settings.put(params.id, body, ctx);
  }

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiDoc({
    summary: "This endpoint's capture policy",
    description: "The capture policy of the calling endpoint's group (cached by the agent).",
  })
  @Get('agent/audit-settings')
  @ApiOkResponse({ type: AuditSettingsDto, description: "The capture policy of the calling endpoint's group." })
  agent(@CurrentPrincipal() principal: Principal): Promise<AuditSettingsDto> {
    if (principal.kind !== 'agent') throw new Error('unreachable: agent route');
    return this.settings.forEndpoint(principal.groupId);
  }
}
