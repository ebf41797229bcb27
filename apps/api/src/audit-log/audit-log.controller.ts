// Admin audit-log routes (admins and auditors): list/export, chain verification and signed checkpoints.
import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiDoc } from '../common/openapi';
import { ReadRoles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import {
  type AuditCheckpoint,
  AuditCheckpointDto,
  AuditEntryPageDto,
  type AuditEntryView,
  ListAuditQueryDto,
  VerifyQueryDto,
  type VerifyResult,
  VerifyResultDto,
} from './audit-log.dto';
import { AuditLogService } from './audit-log.service';

@ApiTags('audit-log')
@ApiBearerAuth()
@Controller('v1/audit-log')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'List or export the admin audit log',
    description:
      'A page of entries newest first; with `format=ndjson` or `csv` every matching entry streamed oldest first. An export answers an error status if its first read fails.',
  })
  @Get()
  @ApiProduces('application/json', 'application/x-ndjson', 'text/csv')
  @ApiOkResponse({
    type: AuditEntryPageDto,
    description:
      'A page of entries (newest first); with format=ndjson or csv, every matching entry streamed oldest first.',
  })
  async list(@Query() query: ListAuditQueryDto): Promise<Page<AuditEntryView> | StreamableFile> {
    if (query.format === 'json') return this.audit.list(query);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return new StreamableFile(await this.audit.export(query, query.format), {
      type: query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      disposition: `attachment; filename="audit-log-${stamp}.${query.format}"`,
    });
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Verify the audit-log hash chain',
    description:
      "Recomputes every entry's hash and link and checks the chain still reaches the recorded head and the given checkpoint.",
  })
  @Get('verify')
  @ApiOkResponse({
    type: VerifyResultDto,
    description:
      'Whether every entry matches its hash and links to its predecessor, and the chain still reaches the recorded ' +
      'head and the given checkpoint; when ok, a signed checkpoint of its end.',
  })
  verify(@Query() query: VerifyQueryDto): Promise<VerifyResult> {
    return this.audit.verify(
      query.checkpointSeq !== undefined && query.checkpointHash !== undefined
        ? { seq: BigInt(query.checkpointSeq), hash: query.checkpointHash }
        : undefined,
    );
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Signed checkpoint of the newest entry',
    description:
      'Keep it outside the database; a later verify with it proves the chain still contains it. 409 when the chain does not end at audit_log_head.',
    errors: [409],
  })
  @Get('head')
  @ApiOkResponse({
    type: AuditCheckpointDto,
    description:
      'A signed checkpoint of the newest entry (409 when the chain does not end where audit_log_head says). ' +
      'Keep it; verify with checkpointSeq and checkpointHash later proves the chain still contains it.',
  })
  head(): Promise<AuditCheckpoint> {
    return this.audit.head();
  }
}
