// Per-group output-capture policy for hook-run records.
import { Module } from '@nestjs/common';
import { AuditSettingsController } from './audit-settings.controller';
import { AuditSettingsRepository } from './audit-settings.repository';
import { AuditSettingsService } from './audit-settings.service';

@Module({ controllers: [AuditSettingsController], providers: [AuditSettingsService, AuditSettingsRepository] })
export class AuditSettingsModule {}
