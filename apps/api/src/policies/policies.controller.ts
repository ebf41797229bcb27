// Policy routes: admins create, rename, move (PATCH groupId) and delete; auditors read.
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
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
  @ApiDoc({
    summary: 'Create a policy',
    description: 'A named, empty policy owned by a group (the default group when none is given).',
    errors: [409],
  })
  @Post()
  @ApiCreatedResponse({ type: PolicyViewDto })
  create(@Body() body: CreatePolicyDto, @AuditCtx() ctx: AuditContext): Promise<PolicyView> {
    return this.policies.create(body, ctx);
  }

  @ReadRoles()
  @ApiDoc({ summary: 'List policies', description: 'Newest first, cursor-paginated; filter by group or name prefix.' })
  @Get()
  @ApiOkResponse({ type: PolicyPageDto })
  list(@Query() query: ListPoliciesQueryDto): Promise<Page<PolicyView>> {
    return this.policies.list(query);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One policy',
    description: 'The policy with its owning group and latest version number.',
    errors: [404],
  })
  @Get(':id')
  @ApiOkResponse({ type: PolicyViewDto })
  get(@Param() params: PolicyIdParamDto): Promise<PolicyView> {
    return this.policies.get(params.id);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Rename, describe or move a policy',
    description: '`groupId` moves the policy to another group; names stay unique.',
    errors: [404, 409],
  })
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
  @ApiDoc({
    summary: 'Delete a policy without versions',
    description: 'A policy that has versions cannot be deleted (409 with the version count).',
    errors: [404, 409],
  })
  @Delete(':id')
  @ApiOkResponse({ type: PolicyViewDto, description: 'The deleted policy; 409 when it has versions.' })
  remove(@Param() params: PolicyIdParamDto, @AuditCtx() ctx: AuditContext): Promise<PolicyView> {
    return this.policies.delete(params.id, ctx);
  }
}
