// The signed-in caller: who they are (GET /v1/me) and their personal tokens for the CLI.
import { Body, Controller, Delete, Get, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { CurrentPrincipal, ReadRoles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import type { Page } from '../common/pagination';
import { paginationQuerySchema } from '../common/pagination';
import { createZodDto } from '../common/zod-dto';
import { ErrorResponses } from './openapi';
import {
  CreatedPersonalTokenDto,
  CreatePersonalTokenDto,
  MeDto,
  PersonalTokenIdParamDto,
  PersonalTokenPageDto,
  type PersonalTokenView,
  PersonalTokenViewDto,
} from './sso.dto';
import { SsoService } from './sso.service';

class PageQueryDto extends createZodDto(paginationQuerySchema) {}

@ApiTags('auth')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/me')
export class MeController {
  constructor(private readonly sso: SsoService) {}

  @ReadRoles()
  @Get()
  @ApiOperation({
    summary: 'Who is signed in',
    description: 'The caller (SSO session or API token), its role, the session expiry and the CSRF token for writes.',
  })
  @ApiOkResponse({ type: MeDto })
  @ErrorResponses(401, 403, 429)
  me(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<unknown> {
    return this.sso.me(principal, request);
  }

  @ReadRoles()
  @Post('tokens')
  @ApiOperation({
    summary: 'Mint a personal token',
    description:
      'A short-lived API token with your role, for `hookwarden login --token` (from an SSO session only; the ' +
      'secret is shown once). Revoked with the session that minted it, or when you lose the role.',
  })
  @ApiCreatedResponse({ type: CreatedPersonalTokenDto })
  @ErrorResponses(400, 401, 403, 429)
  createToken(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreatePersonalTokenDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<CreatedPersonalTokenDto> {
    return this.sso.createPersonalToken(principal, body, ctx);
  }

  @ReadRoles()
  @Get('tokens')
  @ApiOperation({
    summary: 'List your personal tokens',
    description: 'Newest first, including revoked and expired ones.',
  })
  @ApiOkResponse({ type: PersonalTokenPageDto })
  @ErrorResponses(400, 401, 403, 429)
  listTokens(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<Page<PersonalTokenView>> {
    return this.sso.listPersonalTokens(principal, query);
  }

  @ReadRoles()
  @Delete('tokens/:id')
  @ApiOperation({
    summary: 'Revoke one of your personal tokens',
    description: 'The token stops working at once; revoking a token that is not yours answers 404.',
  })
  @ApiOkResponse({ type: PersonalTokenViewDto })
  @ErrorResponses(400, 401, 403, 404, 429)
  revokeToken(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PersonalTokenIdParamDto,
    @AuditCtx() ctx: AuditContext,
  ): Promise<PersonalTokenView> {
    return this.sso.revokePersonalToken(principal, params.id, ctx);
  }
}
