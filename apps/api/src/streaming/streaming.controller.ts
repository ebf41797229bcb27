// Streaming destinations (admins manage, auditors read) and alerts (rules managed by admins; alerts listed for both).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import { ApiDoc } from '../common/openapi';
import { AlertsService } from './alerts.service';
import {
  AlertListDto,
  AlertRuleIdParamDto,
  AlertRuleListDto,
  type AlertRuleView,
  AlertRuleViewDto,
  type AlertView,
  CreateAlertRuleDto,
  CreateDestinationDto,
  DestinationIdParamDto,
  DestinationListDto,
  type DestinationView,
  DestinationViewDto,
  ListAlertsQueryDto,
  ReplayDto,
  RotateSecretDto,
  UpdateAlertRuleDto,
  UpdateDestinationDto,
} from './streaming.dto';
import { StreamingService } from './streaming.service';

@ApiTags('streaming')
@ApiBearerAuth()
@Controller('v1/streaming/destinations')
export class StreamingController {
  constructor(private readonly streaming: StreamingService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List streaming destinations',
    description:
      'Every destination with its delivery state, last error, delivered count and per-stream lag; never its secrets.',
  })
  @Get()
  @ApiOkResponse({ type: DestinationListDto })
  list(): Promise<{ items: DestinationView[] }> {
    return this.streaming.list();
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Create a streaming destination',
    description:
      'Syslog over TCP or TLS, an HTTP webhook (signed), Splunk HEC or OTLP/HTTP logs, with its streams, filters and ' +
      'format. Secrets are write-only (sealed at rest). Delivery starts with events committed from now on (replay for ' +
      'history).',
    errors: [409],
  })
  @Post()
  @ApiCreatedResponse({ type: DestinationViewDto })
  create(@Body() body: CreateDestinationDto, @AuditCtx() ctx: AuditContext): Promise<DestinationView> {
    return this.streaming.create(body, ctx);
  }

  @ReadRoles()
  @ApiDoc({ summary: 'A streaming destination', description: 'Settings, delivery state and lag.', errors: [404] })
  @Get(':id')
  @ApiOkResponse({ type: DestinationViewDto })
  get(@Param() params: DestinationIdParamDto): Promise<DestinationView> {
    return this.streaming.get(params.id);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Change a streaming destination',
    description: 'Secrets given replace those of the same name; cursors stay where they are.',
    errors: [404, 409],
  })
  @Patch(':id')
  @ApiOkResponse({ type: DestinationViewDto })
  update(
    @Param() params: DestinationIdParamDto,
    @Body() body: UpdateDestinationDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<DestinationView> {
    return this.streaming.update(params.id, body, ctx);
  }

  @Roles('admin')
  @ApiDoc({ summary: 'Delete a streaming destination', description: 'With its cursors.', errors: [404] })
  @Delete(':id')
  @ApiOkResponse({ type: DestinationViewDto, description: 'The deleted destination.' })
  delete(@Param() params: DestinationIdParamDto, @AuditCtx() ctx: AuditContext): Promise<DestinationView> {
    return this.streaming.delete(params.id, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Rotate a webhook signing secret',
    description:
      'The new secret signs from now on; during the overlap the previous one signs too (two `v1=` signatures), so ' +
      'receivers can switch without refusing a request.',
    errors: [404, 409],
  })
  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOkResponse({ type: DestinationViewDto })
  rotate(
    @Param() params: DestinationIdParamDto,
    @Body() body: RotateSecretDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<DestinationView> {
    return this.streaming.rotateSecret(params.id, body.secret, body.overlapSec, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Replay a destination',
    description:
      'Moves its cursors back to a time (every stream) or to an event id (its stream) and clears a dead letter; ' +
      'without a position it only clears the dead letter and resumes from the cursor. Events delivered again keep ' +
      'their ids.',
    errors: [404],
  })
  @Post(':id/replay')
  @HttpCode(200)
  @ApiOkResponse({ type: DestinationViewDto })
  replay(
    @Param() params: DestinationIdParamDto,
    @Body() body: ReplayDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<DestinationView> {
    return this.streaming.replay(params.id, body, ctx);
  }
}

@ApiTags('alerts')
@ApiBearerAuth()
@Controller('v1/alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List alerts',
    description: 'Newest first: each episode of a rule for one subject, firing or resolved.',
  })
  @Get()
  @ApiOkResponse({ type: AlertListDto })
  list(@Query() query: ListAlertsQueryDto): Promise<{ items: AlertView[] }> {
    return this.alerts.list(query);
  }

  @ReadRoles()
  @ApiDoc({ summary: 'List alert rules', description: 'Every rule the worker evaluates.' })
  @Get('rules')
  @ApiOkResponse({ type: AlertRuleListDto })
  rules(): Promise<{ items: AlertRuleView[] }> {
    return this.alerts.rules();
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Create an alert rule',
    description: 'denial_rate, chain_gap, endpoint_silent, rollout_paused or signing_key_age, with its parameters.',
    errors: [409],
  })
  @Post('rules')
  @ApiCreatedResponse({ type: AlertRuleViewDto })
  createRule(@Body() body: CreateAlertRuleDto, @AuditCtx() ctx: AuditContext): Promise<AlertRuleView> {
    return this.alerts.createRule(body, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Change an alert rule',
    description: 'Changes the fields given: name, parameters, enabled.',
    errors: [404, 409],
  })
  @Patch('rules/:id')
  @ApiOkResponse({ type: AlertRuleViewDto })
  updateRule(
    @Param() params: AlertRuleIdParamDto,
    @Body() body: UpdateAlertRuleDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<AlertRuleView> {
    return this.alerts.updateRule(params.id, body, ctx);
  }

  @Roles('admin')
  @ApiDoc({ summary: 'Delete an alert rule', description: 'With its alerts.', errors: [404] })
  @Delete('rules/:id')
  @ApiOkResponse({ type: AlertRuleViewDto, description: 'The deleted rule.' })
  deleteRule(@Param() params: AlertRuleIdParamDto, @AuditCtx() ctx: AuditContext): Promise<AlertRuleView> {
    return this.alerts.deleteRule(params.id, ctx);
  }
}
