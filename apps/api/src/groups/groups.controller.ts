// Endpoint-group routes: admins change, auditors read.
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import {
  CreateGroupDto,
  GroupIdParamDto,
  GroupPageDto,
  type GroupView,
  GroupViewDto,
  ListGroupsQueryDto,
  UpdateGroupDto,
} from './groups.dto';
import { GroupsService } from './groups.service';

@ApiTags('groups')
@ApiBearerAuth()
@Controller('v1/groups')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Roles('admin')
  @Post()
  @ApiCreatedResponse({ type: GroupViewDto })
  create(@Body() body: CreateGroupDto, @AuditCtx() ctx: AuditContext): Promise<GroupView> {
    return this.groups.create(body, ctx);
  }

  @ReadRoles()
  @Get()
  @ApiOkResponse({ type: GroupPageDto })
  list(@Query() query: ListGroupsQueryDto): Promise<Page<GroupView>> {
    return this.groups.list(query);
  }

  @ReadRoles()
  @Get(':id')
  @ApiOkResponse({ type: GroupViewDto })
  get(@Param() params: GroupIdParamDto): Promise<GroupView> {
    return this.groups.get(params.id);
  }

  @Roles('admin')
  @Patch(':id')
  @ApiOkResponse({ type: GroupViewDto })
  update(
    @Param() params: GroupIdParamDto,
    @Body() body: UpdateGroupDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<GroupView> {
    return this.groups.update(params.id, body, ctx);
  }

  @Roles('admin')
  @Delete(':id')
  @ApiOkResponse({ type: GroupViewDto, description: 'The deleted group. 409 for the default group or a group in use.' })
  remove(@Param() params: GroupIdParamDto, @AuditCtx() ctx: AuditContext): Promise<GroupView> {
    return this.groups.delete(params.id, ctx);
  }
}
