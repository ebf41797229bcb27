// Admin routes: bundle-signing keys (list, add, activate, retire) for rotation without downtime.
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { AuditCtx } from '../audit-log/audit-context.decorator';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { Roles } from '../auth/auth.decorators';
import { CreateSigningKeyDto, SigningKeyListDto, SigningKeyParamDto, SigningKeyViewDto } from './signing-keys.dto';
import { SigningService } from './signing.service';

const CONFIGURED =
  'The signing key comes from HOOKWARDEN_SIGNING_KEY: keys cannot be added or activated through the API.';

@ApiTags('signing-keys')
@ApiBearerAuth()
@Roles('admin')
@Controller('v1/signing-keys')
export class SigningKeysController {
  constructor(private readonly signing: SigningService) {}

  @ApiDoc({
    summary: 'List signing keys',
    description: 'Every stored key with its state (active, trusted, retired) and public key.',
  })
  @Get()
  @ApiOkResponse({ type: SigningKeyListDto, description: 'Every key, retired ones included, newest first.' })
  list(): Promise<SigningKeyListDto> {
    return this.signing.listKeys();
  }

  @ApiDoc({
    summary: 'Generate a signing key',
    description:
      'Generates an Ed25519 key on the server; `activate: true` makes it sign new bundles at once. 409 when the key comes from HOOKWARDEN_SIGNING_KEY.',
    errors: [409],
  })
  @Post()
  @ApiBody({ type: CreateSigningKeyDto, required: false })
  @ApiCreatedResponse({
    type: SigningKeyViewDto,
    description:
      'A new key generated on the server (its private half stored like the first one). Agents learn it from the ' +
      'key list, signed by a key they already trust, when they first meet a bundle signed by it.',
  })
  @ApiConflictResponse({ description: CONFIGURED })
  add(@Body() body: CreateSigningKeyDto, @AuditCtx() ctx: AuditContext): Promise<SigningKeyViewDto> {
    // Typed as the DTO (a union would hide the class from the validation pipe); a bare POST leaves it undefined.
    return this.signing.addKey((body as CreateSigningKeyDto | undefined)?.activate ?? false, ctx);
  }

  @ApiDoc({
    summary: 'Activate a signing key',
    description: 'New bundles are signed with it from the next release on every instance.',
    errors: [404, 409],
  })
  @Post(':kid/activate')
  @HttpCode(200)
  @ApiOkResponse({ type: SigningKeyViewDto, description: 'The key now signs new bundles (on every instance).' })
  @ApiConflictResponse({ description: `${CONFIGURED} Also: the key is retired or has no stored private key.` })
  activate(@Param() params: SigningKeyParamDto, @AuditCtx() ctx: AuditContext): Promise<SigningKeyViewDto> {
    return this.signing.activateKey(params.kid, ctx);
  }

  @ApiDoc({
    summary: 'Retire a signing key',
    description:
      "Drops it from the key list sent to agents; 409 for the active key or one still serving a group's bundle.",
    errors: [404, 409],
  })
  @Post(':kid/retire')
  @HttpCode(200)
  @ApiOkResponse({
    type: SigningKeyViewDto,
    description: 'The key leaves the trusted key list sent to agents (retiring twice is harmless).',
  })
  @ApiConflictResponse({
    description: 'The key is the active one, or a group is still served a bundle signed by it (details name them).',
  })
  retire(@Param() params: SigningKeyParamDto, @AuditCtx() ctx: AuditContext): Promise<SigningKeyViewDto> {
    return this.signing.retireKey(params.kid, ctx);
  }
}
