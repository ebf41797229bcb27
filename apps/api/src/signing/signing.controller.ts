// The trusted signing public keys for admins and auditors (to check audit-log checkpoints and bundles they fetched);
// managing keys is admin-only (signing-keys.controller.ts).
import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { ReadRoles } from '../auth/auth.decorators';
import { PublicKeysDto } from '../enrollment/enrollment.dto';
import { SigningService } from './signing.service';

@ApiTags('signing')
@ApiBearerAuth()
@Controller('v1/signing-keys')
export class SigningController {
  constructor(private readonly signing: SigningService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'Trusted public keys',
    description: 'The trusted Ed25519 public keys, as agents get them; also verify audit-log checkpoint signatures.',
  })
  @Get('trusted')
  @ApiOkResponse({
    type: PublicKeysDto,
    description:
      'Every trusted Ed25519 public key (kid, SPKI PEM), signed by the active key: the list agents get from ' +
      'GET /v1/agent/keys. Checks the signatures of audit-log checkpoints and bundles.',
  })
  keys(): Promise<PublicKeysDto> {
    return this.signing.signedKeyList();
  }
}
