// Admin audit-log routes (admins and auditors): list/export and chain verification.
import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ReadRoles } from '../auth/auth.decorators';
import type { Page } from '../common/pagination';
import {
  AuditEntryPageDto,
  type AuditEntryView,
  ListAuditQueryDto,
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
  @Get()
  @ApiProduces('application/json', 'application/x-ndjson', 'text/csv')
  @ApiOkResponse({
    type: AuditEntryPageDto,
    description:
      'A page of entries (newest first); with format=ndjson or csv, every matching entry streamed oldest first.',
  })
  list(@Query() query: ListAuditQueryDto): Promise<Page<AuditEntryView>> | StreamableFile {
    if (query.format === 'json') return this.audit.list(query);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return new StreamableFile(this.audit.export(query, query.format), {
      type: query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      disposition: `attachment; filename="audit-log-${stamp}.${query.format}"`,
    });
  }

  @ReadRoles()
  @Get('verify')
  @ApiOkResponse({
    type: VerifyResultDto,
    description: 'Whether every entry matches its hash and links to its predecessor.',
  })
  verify(): Promise<VerifyResult> {
    return this.audit.verify();
  }
}
