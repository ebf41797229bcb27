// Agent routes handled by Nest: enrollment, trusted keys, status (the bundle long poll is in bundle.route.ts).
import { Body, Controller, Get, Headers, HttpCode, Ip, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AgentKeyRoute, AgentRoute, CurrentPrincipal, Public, SigningEndpoint } from '../auth/auth.decorators';
import { AgentSessionService } from '../auth/agent-session.service';
import type { EndpointIdentity } from '../auth/credentials.repository';
import { presentedCredential } from '../auth/credential-sources';
import type { Principal } from '../auth/principal';
import { AssignmentService } from '../endpoints/assignment.service';
import {
  EnrollDto,
  EnrolledDto,
  PublicKeysDto,
  RegisterKeyDto,
  RegisteredKeyDto,
  SignedStatementDto,
} from '../enrollment/enrollment.dto';
import { EnrollmentService } from '../enrollment/enrollment.service';
import { SigningService } from '../signing/signing.service';
import { SessionDto, SessionRequestDto, StatusAcceptedDto, StatusDto } from './agent.dto';
import { AgentService } from './agent.service';

// The agent's ids (agent routes are only reachable with an agent principal).
function agentOf(p: Principal): { endpointId: string; groupId: string } {
  if (p.kind !== 'agent') throw new Error('agent route reached without an agent principal');
  return p;
}

@ApiTags('agent')
@Controller('v1/agent')
export class AgentController {
  constructor(
    private readonly enrollment: EnrollmentService,
    private readonly signing: SigningService,
    private readonly agent: AgentService,
    private readonly assignment: AssignmentService,
    private readonly sessions: AgentSessionService,
  ) {}

  @Public()
  @ApiDoc({
    summary: 'Enroll a machine',
    description:
      'Exchanges an enrollment secret (body `secret`, or the bearer) and the proof of a new endpoint key for an endpoint ' +
      'and the trusted signing keys; no bearer credential is issued (agent requests are signed, see POST ' +
      '/v1/agent/session). A machine id is a hint: re-enrolling a known one needs `previous` (the proof of that ' +
      "endpoint's current key), else a new endpoint is made *pending* (202) with a duplicate_machine_id finding for an " +
      'admin. 403 endpoint_revoked: the proven endpoint is revoked/rejected/retired (only an admin re-admits). 409: the ' +
      'secret belongs to another group than the proven endpoint (an endpoint never moves itself), or the key is taken. ' +
      '401: unknown/revoked/expired/used-up secret, a proof that does not verify, or clock_skew. Failed attempts count ' +
      "against the address's failure limit (429).",
    errors: [400, 401, 403, 409, 429],
  })
  @Post('enroll')
  @ApiCreatedResponse({ type: EnrolledDto, description: 'Enrolled (new endpoint) or re-keyed (reenrolled: true).' })
  @ApiAcceptedResponse({
    type: EnrolledDto,
    description: 'admission pending: the machine id is already known without proof of its key; an admin decides.',
  })
  async enroll(
    @Body() body: EnrollDto,
    @Ip() clientIp: string,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('authorization') authorization?: string,
  ): Promise<EnrolledDto> {
    const { secret, ...rest } = body;
    const answer = await this.enrollment.enroll(
      secret ?? presentedCredential({ authorization })?.secret,
      rest,
      clientIp,
    );
    void reply.status(answer.admission === 'pending' ? 202 : 201);
    return answer;
  }

  @AgentKeyRoute()
  @ApiSecurity('agentSignature')
  @ApiDoc({
    summary: 'Open an agent session',
    description:
      'Signed with the endpoint key itself (Signature-Input alg="ed25519", keyid = the key id ek1:…). Answers a ' +
      'session id (the keyid of HMAC-signed requests) and its key, sealed to `ephemeralKey` when given. Sessions last ' +
      'AGENT_SESSION_TTL_SEC (600 s); renew before expiry or on 401 session_expired. 401: signature_required, ' +
      'signature_malformed, unauthorized (unknown/revoked/retired endpoint or key), clock_skew, digest_mismatch, ' +
      'signature_invalid, replayed_request; 403 endpoint_pending.',
    errors: [400, 401, 403, 429],
  })
  @Post('session')
  @HttpCode(200)
  @ApiOkResponse({ type: SessionDto })
  session(@SigningEndpoint() endpoint: EndpointIdentity, @Body() body: SessionRequestDto): SessionDto {
    return this.sessions.issue(endpoint, body.ephemeralKey);
  }

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiBearerAuth()
  @ApiDoc({
    summary: "Register a bearer-enrolled endpoint's first key (migration)",
    description:
      'For endpoints enrolled before endpoint keys: authenticated by the legacy bearer, with the `migrate` proof of ' +
      'the new key. The bearer credential stops working at once; the same key again answers 200 (a retry). 409: the ' +
      'endpoint already has another key.',
    errors: [400, 401, 409],
  })
  @Post('key')
  @HttpCode(200)
  @ApiOkResponse({ type: RegisteredKeyDto })
  registerKey(@CurrentPrincipal() principal: Principal, @Body() body: RegisterKeyDto): Promise<RegisteredKeyDto> {
    return this.enrollment.registerKey(agentOf(principal).endpointId, body);
  }

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiBearerAuth()
  @ApiDoc({
    summary: 'Trusted signing keys, signed',
    description: 'The key list agents verify bundles with, signed by a key they already trust.',
  })
  @Get('keys')
  @ApiOkResponse({
    type: PublicKeysDto,
    description:
      'Every public key currently trusted to sign bundles, signed by the active key (agents accept new keys only from a key they trust).',
  })
  async keys(): Promise<PublicKeysDto> {
    return this.signing.signedKeyList();
  }

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiBearerAuth()
  @Get('assignment')
  @ApiOperation({
    summary: "This endpoint's signed group assignment",
    description: 'The group this endpoint belongs to with its epoch, signed by a key the agent trusts.',
  })
  @ApiOkResponse({
    type: SignedStatementDto,
    description:
      'The canonical JSON text of `{ kind: "hookwarden.assignment", format, endpointId, groupId, epoch, minRevision, ' +
      'issuedAt }` signed with the bundle key. The agent applies only bundles of this group, adopts a statement only ' +
      'with a higher epoch than the one it holds (a move), and refuses bundles of the group older than minRevision.',
  })
  assignmentOf(@CurrentPrincipal() principal: Principal): Promise<SignedStatementDto> {
    return this.assignment.signedFor(agentOf(principal).endpointId);
  }

  @AgentRoute()
  @ApiSecurity('agentSignature')
  @ApiBearerAuth()
  @ApiDoc({
    summary: "Report this endpoint's status",
    description: 'What the agent applied (revision, digest, files) or why it refused a bundle; feeds the rollout gate.',
  })
  @Post('status')
  @HttpCode(200)
  @ApiOkResponse({ type: StatusAcceptedDto })
  status(@CurrentPrincipal() principal: Principal, @Body() body: StatusDto): Promise<StatusAcceptedDto> {
    const { endpointId, groupId } = agentOf(principal);
    return this.agent.status(endpointId, groupId, body);
  }
}
