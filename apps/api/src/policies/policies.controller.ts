// Policy routes: admins create, rename, move (PATCH groupId) and delete; auditors read.
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import {
  CreatePolicyDto,
  ListPoliciesQueryDto,
  PolicyIdParamDto,
  PolicyPageDto,
  type PolicyView,
  PolicyViewDto,
  UpdatePolicyDto,
} from './policies.dto';
import { PoliciesService } from './policies.service';

@ApiTags('policies')
@ApiBearerAuth()
@Controller('v1/policies')
export class PoliciesController {
  constructor(private readonly policies: PoliciesService) {}

  @Roles('admin')
  @Post()
  @ApiCreatedResponse({ type: PolicyViewDto })
  create(@Body() body: CreatePolicyDto, @AuditCtx() ctx: AuditContext): Promise<PolicyView> {
    return this.policies.create(body, ctx);
  }

  @ReadRoles()
  @Get()
  @ApiOkResponse({ type: PolicyPageDto })
  list(@Query() query: ListPoliciesQueryDto): Promise<Page<PolicyView>> {
    return this.policies.list(query);
  }

  @ReadRoles()
  @Get(':id')
  @ApiOkResponse({ type: PolicyViewDto })
  get(@Param() params: PolicyIdParamDto): Promise<PolicyView> {
    return this.policies.get(params.id);
  }

  @Roles('admin')
  @Patch(':id')
  @ApiOkResponse({ type: PolicyViewDto, description: 'Changing groupId moves the policy to that group (audited).' })
  update(
    @Param() params: PolicyIdParamDto,
    @Body() body: UpdatePolicyDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<PolicyView> {
    return this.policies.update(params.id, body, ctx);
  }

  @Roles('admin')
  @Delete(':id')
  @ApiOkResponse({ type: PolicyViewDto, description: 'The deleted policy; 409 when it has versions.' })
  remove(@Param() params: PolicyIdParamDto, @AuditCtx() ctx: AuditContext): Promise<PolicyView> {
    return this.policies.delete(params.id, ctx);
  }
}
