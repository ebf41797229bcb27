// Browser sign-in through the identity provider (OIDC code flow with PKCE), sign-out and the auth configuration.
import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiSeeOtherResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ErrorResponses } from './openapi';
import { AuthConfigDto, CallbackQueryDto, LoginQueryDto, LogoutResultDto } from './sso.dto';
import { type BrowserResponse, SsoService } from './sso.service';

// Sends a browser response (redirect or HTML page).
function send(reply: FastifyReply, r: BrowserResponse): void {
  void reply
    .code(r.status)
    .headers(r.headers)
    .send(r.body ?? '');
}

@ApiTags('auth')
@Controller('v1/auth')
export class SsoController {
  constructor(private readonly sso: SsoService) {}

  @Public()
  @Get('config')
  @ApiOperation({
    summary: 'How people sign in',
    description:
      'Whether SSO is on, the URL that starts it, and whether the browser holds a session cookie (so a signed-out ' +
      'console need not probe GET /v1/me for a 401).',
  })
  @ApiOkResponse({ type: AuthConfigDto })
  config(@Req() request: FastifyRequest): AuthConfigDto {
    return this.sso.authConfig(request);
  }

  @Public()
  @Get('oidc/login')
  @ApiOperation({
    summary: 'Start SSO sign-in',
    description:
      'Redirects the browser to the identity provider (authorization code flow with PKCE, state and nonce bound to ' +
      'this browser by a short-lived cookie). 404 page when SSO is off; 503 while the IdP is unreachable.',
  })
  @ApiFoundResponse({ description: 'Redirect to the identity provider' })
  @ErrorResponses(400, 404, 503)
  async login(@Query() query: LoginQueryDto, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.sso.startLogin(query.returnTo));
  }

  @Public()
  @Get('oidc/callback')
  @ApiOperation({
    summary: 'SSO sign-in callback',
    description:
      'Where the identity provider sends the browser back: redeems the code, verifies the ID token (signature, ' +
      'issuer, audience, nonce, expiry), maps IdP groups to a role and sets the session cookie. People in no mapped ' +
      'group get a 403 page; a failed verification a 400/401 page.',
  })
  @ApiSeeOtherResponse({ description: 'Signed in: redirect to the page the sign-in started from' })
  @ApiResponse({ status: 403, description: 'Signed in at the IdP, but in no group mapped to a role (HTML page)' })
  @ErrorResponses(400, 401, 404, 503)
  async callback(
    @Query() query: CallbackQueryDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    send(reply, await this.sso.completeLogin(request, query));
  }

  @Public()
  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign out',
    description:
      'Ends the session of the cookie (needs the x-csrf-token header of the session) and clears the cookie; ' +
      "`endSessionUrl` ends the identity provider's session too when it supports RP-initiated logout.",
  })
  @ApiOkResponse({ type: LogoutResultDto })
  @ErrorResponses(403)
  async logout(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LogoutResultDto> {
    const { result, setCookie } = await this.sso.logout(request);
    void reply.header('set-cookie', setCookie).header('cache-control', 'no-store');
    return result;
  }
}
