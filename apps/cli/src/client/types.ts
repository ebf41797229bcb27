// The API's answers the CLI reads, by name: each one derived from the OpenAPI document through the admin client
// (nothing here is written by hand; a field the API drops fails the type check where the CLI reads it).
import type { ItemOf, ResponseBody, Schemas } from '@hookwarden/admin-client';

export type GroupView = Schemas['GroupViewDto'];
export type PolicyView = Schemas['PolicyViewDto'];
export type VersionView = Schemas['VersionViewDto'];
export type VersionSummary = ItemOf<'GET', '/v1/policies/{id}/versions'>;
export type DiffView = Schemas['DiffViewDto'];
export type ReleaseView = Schemas['ReleaseViewDto'];
export type RolloutView = Schemas['RolloutDto'];
/** GET /v1/releases/:id/shadow-report: a shadow release's decisions against the enforced ones. */
export type ShadowReportView = Schemas['ShadowReportDto'];
export type AuditSettings = Schemas['AuditSettingsDto'];
export type AuditCheckpoint = Schemas['AuditCheckpointDto'];
export type VerifyResult = ResponseBody<'GET', '/v1/audit-log/verify'>;
export type PublicKeyList = ResponseBody<'GET', '/v1/signing-keys/trusted'>;
/** GET /v1/groups/:id/release-preview: the impact of releasing a version, from the latest inventories. */
export type ReleasePreviewView = Schemas['ReleasePreviewDto'];
