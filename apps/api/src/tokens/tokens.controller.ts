// API-token routes (admins only): create (secret shown once), list, revoke.
import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { Roles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import {
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TokenIdParamDto,
  TokenPageDto,
  type TokenView,
  TokenViewDto,
} from './tokens.dto';
import { TokensService } from './tokens.service';

@ApiTags('tokens')
@ApiBearerAuth()
@Controller('v1/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Roles('admin')
  @ApiDoc({
    summary: 'Create an API token',
    description: 'The secret is shown only in this answer; only its hash is stored.',
  })
  @Post()
  @ApiCreatedResponse({ type: CreatedTokenDto, description: 'The token; `token` is the secret, shown only here.' })
  create(@Body() body: CreateTokenDto, @AuditCtx() ctx: AuditContext): Promise<CreatedTokenDto> {
    return this.tokens.create(body, ctx);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'List API tokens',
    description: 'Newest first, cursor-paginated; never the secrets. Filter by role and by whether the token is live.',
  })
  @Get()
  @ApiOkResponse({ type: TokenPageDto })
  list(@Query() query: ListTokensQueryDto): Promise<Page<TokenView>> {
    return this.tokens.list(query);
  }

  @Roles('admin')
  @ApiDoc({
    summary: 'Revoke an API token',
    description: 'The token stops working at once on this instance and within seconds on every other one.',
    errors: [404],
  })
  @Delete(':id')
  @ApiOkResponse({ type: TokenViewDto, description: 'The revoked token (revoking twice is harmless).' })
  revoke(@Param() params: TokenIdParamDto, @AuditCtx() ctx: AuditContext): Promise<TokenView> {
    return this.tokens.revoke(params.id, ctx);
  }
}
