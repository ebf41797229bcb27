// Policy-version routes: author (admins), list/read/requirements.toml/diff (admins and auditors). Versions are immutable.
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import type { FastifyReply } from 'fastify';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ReadRoles, Roles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import { PolicyIdParamDto } from './policies.dto';
import {
  CreateVersionDto,
  DiffParamsDto,
  DiffQueryDto,
  type DiffView,
  DiffViewDto,
  GetVersionQueryDto,
  ListVersionsQueryDto,
  VersionPageDto,
  VersionParamsDto,
  type VersionSummary,
  type ValidationResult,
  ValidationResultDto,
  type VersionView,
  VersionViewDto,
} from './versions.dto';
import { VersionsService } from './versions.service';

@ApiTags('policy versions')
@ApiBearerAuth()
@Controller('v1/policies/:id/versions')
export class VersionsController {
  constructor(private readonly versions: VersionsService) {}

  @Roles('admin')
  @ApiDoc({
    summary: 'Author a new policy version',
    description:
      'From `toml` or `policy` plus `files`; validated by hook-core. Needs the base version (`baseVersion` or `If-Match`) once a version exists.',
    errors: [404, 409, 412, 428],
  })
  @Post()
  @ApiHeader({ name: 'If-Match', required: false, description: 'Quoted digest of the version this edit is based on' })
  @ApiCreatedResponse({ type: VersionViewDto, description: 'A new version (with lint warnings).' })
  @ApiOkResponse({ type: VersionViewDto, description: 'Content identical to the latest version: nothing was created.' })
  @ApiConflictResponse({ description: 'Stale base: error.details.currentVersion is the latest version.' })
  @ApiResponse({ status: 428, description: 'Versions exist but no base was named (baseVersion or If-Match).' })
  async create(
    @Param() params: PolicyIdParamDto,
    @Body() body: CreateVersionDto,
    @Headers('if-match') ifMatch: string | undefined,
    @AuditCtx() ctx: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<VersionView> {
    const result = await this.versions.create(params.id, body, ifMatch, ctx);
    void reply.status(result.created ? 201 : 200).header('etag', `"${result.version.digest}"`);
    return result.version;
  }

  @Roles('admin')
  @Post('validate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Validate a version without creating it',
    description:
      'Runs the checks of POST /v1/policies/{id}/versions (hook-core parse, schema and lint; files) on the same body ' +
      'and stores nothing; problems come back located (line/column for TOML, path and field otherwise).',
  })
  @ApiOkResponse({ type: ValidationResultDto, description: 'ok, or every problem that would reject the version.' })
  @ApiNotFoundResponse({ description: 'No such policy.' })
  validate(@Param() params: PolicyIdParamDto, @Body() body: CreateVersionDto): Promise<ValidationResult> {
    return this.versions.validate(params.id, body);
  }

  @ReadRoles()
  @ApiDoc({
    summary: "List a policy's versions",
    description: 'By version number, cursor-paginated; summaries without file contents.',
    errors: [404],
  })
  @Get()
  @ApiOkResponse({ type: VersionPageDto })
  list(@Param() params: PolicyIdParamDto, @Query() query: ListVersionsQueryDto): Promise<Page<VersionSummary>> {
    return this.versions.list(params.id, query);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'One policy version',
    description:
      'With `withContent=true` every file carries its content as base64 with `encoding: "base64"`, so it can be posted back unchanged.',
    errors: [404],
  })
  @Get(':n')
  @ApiOkResponse({ type: VersionViewDto })
  get(@Param() params: VersionParamsDto, @Query() query: GetVersionQueryDto): Promise<VersionView> {
    return this.versions.get(params.id, params.n, query.withContent === 'true');
  }

  @ReadRoles()
  @ApiDoc({
    summary: "The version's canonical requirements.toml",
    description: 'Byte for byte the file endpoints receive, with its digest as ETag.',
    errors: [404],
  })
  @Get(':n/requirements.toml')
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string' }, description: 'The canonical requirements.toml, byte for byte.' })
  async toml(@Param() params: VersionParamsDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { text, digest } = await this.versions.toml(params.id, params.n);
    void reply.header('content-type', 'text/plain; charset=utf-8').header('etag', `"${digest}"`);
    return text;
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Diff two versions',
    description: 'Unified diffs of the TOML and every changed file; `format=text` answers one text/x-diff.',
    errors: [404],
  })
  @Get(':a/diff/:b')
  @ApiProduces('application/json', 'text/x-diff')
  @ApiOkResponse({ type: DiffViewDto, description: 'Per-file unified diffs; ?format=text gives one text/x-diff.' })
  async diff(
    @Param() params: DiffParamsDto,
    @Query() query: DiffQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DiffView | string> {
    const result = await this.versions.diff(params.id, params.a, params.b, query.format, query.context);
    if (typeof result === 'string') void reply.header('content-type', 'text/x-diff; charset=utf-8');
    return result;
  }
}
