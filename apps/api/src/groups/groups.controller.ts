// Endpoint-group routes: admins change, auditors read.
import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
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
  @ApiDoc({
    summary: 'Create a group',
    description: 'Group names are unique; the new group starts with no policy and no endpoints.',
    errors: [409],
  })
  @Post()
  @ApiCreatedResponse({ type: GroupViewDto })
  create(@Body() body: CreateGroupDto, @AuditCtx() ctx: AuditContext): Promise<GroupView> {
    return this.groups.create(body, ctx);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'List groups',
    description: 'Newest first, cursor-paginated; `namePrefix` filters by the start of the name.',
  })
  @Get()
  @ApiOkResponse({ type: GroupPageDto })
  list(@Query() query: ListGroupsQueryDto): Promise<Page<GroupView>> {
    return this.groups.list(query);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One group',
    description: 'The group with its name, description and whether it is the default group.',
    errors: [404],
  })
  @Get(':id')
  @ApiOkResponse({ type: GroupViewDto })
  get(@Param() params: GroupIdParamDto): Promise<GroupView> {
    return this.groups.get(params.id);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Rename or describe a group',
    description: 'The default group cannot be renamed; names stay unique.',
    errors: [404, 409],
  })
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
  @ApiDoc({
    summary: 'Delete a group',
    description:
      'The default group and groups in use (endpoints, policies, secrets, releases) cannot be deleted: 409 naming why.',
    errors: [404, 409],
  })
  @Delete(':id')
  @ApiOkResponse({ type: GroupViewDto, description: 'The deleted group. 409 for the default group or a group in use.' })
  remove(@Param() params: GroupIdParamDto, @AuditCtx() ctx: AuditContext): Promise<GroupView> {
    return this.groups.delete(params.id, ctx);
  }
}
