// People's SSO sessions, for admins: list and revoke.
import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { Roles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import { ErrorResponses } from './openapi';
import { ListSessionsQueryDto, SessionIdParamDto, SessionPageDto, type SessionView, SessionViewDto } from './sso.dto';
import { SsoService } from './sso.service';

@ApiTags('auth')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly sso: SsoService) {}

  @Roles('admin')
  @Get()
  @ApiOperation({ summary: 'List SSO sessions', description: 'Newest first; filter by live/ended and by person.' })
  @ApiOkResponse({ type: SessionPageDto })
  @ErrorResponses(400, 401, 403, 429)
  list(@Query() query: ListSessionsQueryDto): Promise<Page<SessionView>> {
    return this.sso.listSessions(query);
  }

  @Roles('admin')
  @Delete(':id')
  @ApiOperation({
    summary: 'Revoke an SSO session',
    description: 'Ends it at once on every instance, with the personal tokens it minted (revoking twice is harmless).',
  })
  @ApiOkResponse({ type: SessionViewDto })
  @ErrorResponses(400, 401, 403, 404, 429)
  revoke(@Param() params: SessionIdParamDto, @AuditCtx() ctx: AuditContext): Promise<SessionView> {
    return this.sso.revokeSession(params.id, ctx);
  }
}
