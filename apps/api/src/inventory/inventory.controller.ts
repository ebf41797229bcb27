// Hook inventory routes: agents report; admins and auditors see the fleet, findings and a release's impact.
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AgentRoute, CurrentPrincipal, ReadRoles, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import type { Page } from '../common/pagination';
import { INVENTORY_MEDIA_TYPE } from './inventory.body';
import {
  ChangesQueryDto,
  DeniedHashDto,
  DeniedHashListDto,
  RemovedDto,
  DenyHashDto,
  EndpointIdParamDto,
  EndpointInventoryDto,
  FleetHookPageDto,
  FleetHooksQueryDto,
  FleetPluginListDto,
  HashParamDto,
  InventoryAcceptedDto,
  InventoryChangePageDto,
  InventoryFindingListDto,
  InventoryFindingsQueryDto,
  PreviewGroupParamDto,
  PreviewQueryDto,
  ReleasePreviewDto,
  type FleetHook,
} from './inventory.dto';
import { InventoryService } from './inventory.service';

const ERRORS = { 400: 'Invalid request', 401: 'Missing or invalid credentials', 403: 'Wrong role', 404: 'Not found' };

@ApiTags('inventory')
@ApiBearerAuth()
@Controller()
export class InventoryController {
  constructor(private readonly inventory: InventoryService) {}

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @Post('v1/agent/inventory')
  @HttpCode(200)
  @ApiOperation({
    summary: "Report the endpoint's hook inventory",
    description: 'gzip JSON (Content-Encoding: gzip), bounded size.',
  })
  @ApiConsumes(INVENTORY_MEDIA_TYPE)
  @ApiBody({ schema: { type: 'object' } })
  @ApiOkResponse({ type: InventoryAcceptedDto })
  @ApiResponse({ status: 400, description: ERRORS[400] })
  @ApiResponse({ status: 413, description: 'Larger than the inventory bound' })
  report(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<InventoryAcceptedDto> {
    if (principal.kind !== 'agent') throw new Error('unreachable: agent route');
    return this.inventory.accept({ endpointId: principal.endpointId, groupId: principal.groupId }, body);
  }

  @ReadRoles()
  @Get('v1/inventory/hooks')
  @ApiOperation({
    summary: 'Hooks across the fleet',
    description:
      'Grouped by definition hash: endpoints, layers, trust statuses; filter by program, command text, plugin, trust.',
  })
  @ApiOkResponse({ type: FleetHookPageDto })
  @ApiResponse({ status: 400, description: ERRORS[400] })
  hooks(@Query() query: FleetHooksQueryDto): Promise<Page<FleetHook>> {
    return this.inventory.fleetHooks(query);
  }

  @ReadRoles()
  @Get('v1/inventory/plugins')
  @ApiOperation({
    summary: 'Plugins installed across the fleet',
    description: 'Each plugin with the endpoints and hooks it brings, and where one of its hooks is untrusted.',
  })
  @ApiOkResponse({ type: FleetPluginListDto })
  plugins(@Query() query: InventoryFindingsQueryDto): Promise<FleetPluginListDto> {
    return this.inventory.plugins(query.groupId);
  }

  @ReadRoles()
  @Get('v1/inventory/changes')
  @ApiOperation({
    summary: 'Recent inventory changes',
    description: 'What appeared and went away on which endpoint, newest first.',
  })
  @ApiOkResponse({ type: InventoryChangePageDto })
  changes(@Query() query: ChangesQueryDto): Promise<Page<unknown>> {
    return this.inventory.changes(query);
  }

  @ReadRoles()
  @Get('v1/inventory/findings')
  @ApiOperation({
    summary: 'Inventory findings',
    description: 'Known-bad hooks, and managed hooks missing where the layer is applied.',
  })
  @ApiOkResponse({ type: InventoryFindingListDto })
  findings(@Query() query: InventoryFindingsQueryDto): Promise<{ items: unknown[] }> {
    return this.inventory.findings(query);
  }

  @ReadRoles()
  @Get('v1/endpoints/:id/inventory')
  @ApiOperation({
    summary: "An endpoint's latest hook inventory",
    description: 'The last report its agent sent, with when it was collected, received and last changed.',
  })
  @ApiOkResponse({ type: EndpointInventoryDto })
  @ApiResponse({ status: 404, description: ERRORS[404] })
  endpoint(@Param() params: EndpointIdParamDto): Promise<unknown> {
    return this.inventory.endpoint(params.id);
  }

  @ReadRoles()
  @Get('v1/groups/:groupId/release-preview')
  @ApiOperation({
    summary: 'Preview the impact of releasing a version',
    description:
      'From the latest inventories: hooks suppressed, endpoints turning hooks off, missing managed scripts, unknowns; ' +
      'and the endpoints whose agent understands an older policy/bundle contract than the version needs.',
  })
  @ApiOkResponse({ type: ReleasePreviewDto })
  @ApiResponse({ status: 404, description: ERRORS[404] })
  preview(
    @Param() params: PreviewGroupParamDto,
    @Query() query: PreviewQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    // The service writes the JSON text (the stored keys spliced in): sent as is.
    void reply.type('application/json; charset=utf-8');
    return this.inventory.previewJson(params.groupId, query.policyVersionId);
  }

  @ReadRoles()
  @Get('v1/inventory/denied-hashes')
  @ApiOperation({
    summary: 'Known-bad hook hashes',
    description: 'The deny list: hook definition hashes that become findings wherever they appear.',
  })
  @ApiOkResponse({ type: DeniedHashListDto })
  denied(): Promise<{ items: unknown[] }> {
    return this.inventory.deniedHashes();
  }

  @Roles('admin')
  @Post('v1/inventory/denied-hashes')
  @ApiOperation({
    summary: 'Add a known-bad hook hash',
    description: 'Matching hooks in any inventory become findings.',
  })
  @ApiCreatedResponse({ type: DeniedHashDto, description: 'The entry' })
  deny(@Body() body: DenyHashDto, @AuditCtx() ctx: AuditContext): Promise<unknown> {
    return this.inventory.denyHash(body.hash, body.reason, ctx);
  }

  @Roles('admin')
  @Delete('v1/inventory/denied-hashes/:hash')
  @ApiOperation({
    summary: 'Remove a known-bad hook hash',
    description: 'Matching hooks stop being findings; audited.',
  })
  @ApiOkResponse({ type: RemovedDto, description: 'Removed' })
  @ApiResponse({ status: 404, description: ERRORS[404] })
  undeny(@Param() params: HashParamDto, @AuditCtx() ctx: AuditContext): Promise<{ removed: true }> {
    return this.inventory.undenyHash(params.hash, ctx);
  }
}
