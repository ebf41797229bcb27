// Output-capture policy of a group's endpoints (applied by the agent before records leave the endpoint).
import { createZodDto } from '../common/zod-dto';
import { type CaptureSettings, captureSettingsSchema, DEFAULT_CAPTURE_SETTINGS } from '@hookwarden/hook-core';
import { z } from 'zod';

/** The group's capture settings: hook-core's one schema (names, limits and defaults shared with agent and engine). */
export const auditSettingsSchema = captureSettingsSchema;
export class AuditSettingsDto extends createZodDto(auditSettingsSchema) {}
export type AuditSettings = CaptureSettings;

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = DEFAULT_CAPTURE_SETTINGS;

export const groupIdParamSchema = z.object({ id: z.uuid() });
export class GroupIdParamDto extends createZodDto(groupIdParamSchema) {}
