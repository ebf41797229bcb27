// Admin routes for a group's enrollment secrets.
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { UuidParamPipe } from '../common/validation.pipe';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { Roles } from '../auth/auth.decorators';
import {
  CreateEnrollmentSecretDto,
  CreatedEnrollmentSecretDto,
  EnrollmentSecretListDto,
  EnrollmentSecretViewDto,
} from './enrollment.dto';
import { EnrollmentService } from './enrollment.service';

@ApiTags('enrollment')
@ApiBearerAuth()
@Controller('v1')
export class EnrollmentController {
  constructor(private readonly enrollment: EnrollmentService) {}

  @Roles('admin')
  @ApiDoc({
    summary: 'Create an enrollment secret',
    description: 'The secret is shown only in this answer.',
    errors: [404],
  })
  @Post('groups/:groupId/enrollment-secrets')
  @ApiCreatedResponse({ type: CreatedEnrollmentSecretDto, description: 'The secret is shown only in this answer.' })
  create(
    @Param('groupId', UuidParamPipe) groupId: string,
    @Body() body: CreateEnrollmentSecretDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<CreatedEnrollmentSecretDto> {
    return this.enrollment.create(groupId, body, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: "List a group's enrollment secrets",
    description: 'Every secret of the group with its prefix, uses and state; never the secret itself.',
    errors: [404],
  })
  @Get('groups/:groupId/enrollment-secrets')
  @ApiOkResponse({ type: EnrollmentSecretListDto })
  list(@Param('groupId', UuidParamPipe) groupId: string): Promise<EnrollmentSecretListDto> {
    return this.enrollment.list(groupId);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Revoke an enrollment secret',
    description: 'Machines can no longer enroll with it; enrolled endpoints are not affected.',
    errors: [404],
  })
  @Post('enrollment-secrets/:id/revoke')
  @HttpCode(200)
  @ApiOkResponse({ type: EnrollmentSecretViewDto })
  revoke(@Param('id', UuidParamPipe) id: string, @AuditCtx() ctx: AuditContext): Promise<EnrollmentSecretViewDto> {
    return this.enrollment.revoke(id, ctx);
  }
}
