// Agent routes handled by Nest: enrollment, trusted keys, status (the bundle long poll is in bundle.route.ts).
import { Body, Controller, Get, Headers, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AgentRoute, CurrentPrincipal, Public } from '../auth/auth.decorators';
import { presentedCredential } from '../auth/credential-sources';
import type { Principal } from '../auth/principal';
import { AssignmentService } from '../endpoints/assignment.service';
import { EnrollDto, EnrolledDto, PublicKeysDto, SignedStatementDto } from '../enrollment/enrollment.dto';
import { EnrollmentService } from '../enrollment/enrollment.service';
import { SigningService } from '../signing/signing.service';
import { StatusAcceptedDto, StatusDto } from './agent.dto';
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
  ) {}

  @Public()
  @ApiDoc({
    summary: 'Enroll a machine',
    description:
      "Exchanges an enrollment secret (body `secret`, or the bearer) for an endpoint credential and the trusted signing keys. Failed attempts count against the address's failure limit.",
    errors: [401, 409, 429],
  })
  @Post('enroll')
  @ApiCreatedResponse({
    type: EnrolledDto,
    description:
      'Authenticated by the enrollment secret (body `secret` or bearer). Re-enrolling a machine rotates its credential.',
  })
  enroll(
    @Body() body: EnrollDto,
    @Ip() clientIp: string,
    @Headers('authorization') authorization?: string,
  ): Promise<EnrolledDto> {
    const { secret, ...rest } = body;
    return this.enrollment.enroll(secret ?? presentedCredential({ authorization })?.secret, rest, clientIp);
  }

  @AgentRoute()
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
