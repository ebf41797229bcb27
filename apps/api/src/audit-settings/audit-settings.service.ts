// Reads and changes the capture policy; agents read their group's.
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { type AuditSettings, DEFAULT_AUDIT_SETTINGS } from './audit-settings.dto';
import { AuditSettingsRepository } from './audit-settings.repository';

@Injectable()
export class AuditSettingsService {
  constructor(private readonly repository: AuditSettingsRepository) {}

  // The group's settings (defaults when never set); 404 for an unknown group.
  async get(groupId: string): Promise<AuditSettings> {
    if (!(await this.repository.groupExists(groupId))) throw new ApiError('not_found', `Group ${groupId} not found`);
    return (await this.repository.find(groupId)) ?? DEFAULT_AUDIT_SETTINGS;
  }

  // Replaces the group's settings (audited).
  async put(groupId: string, settings: AuditSettings, ctx: AuditContext): Promise<AuditSettings> {
    const before = await this.get(groupId);
    await this.repository.put(groupId, settings, before, ctx);
    return settings;
  }

  // The settings an endpoint must apply (its group's, or the defaults).
  async forEndpoint(groupId: string): Promise<AuditSettings> {
    return (await this.repository.find(groupId)) ?? DEFAULT_AUDIT_SETTINGS;
  }
}
