// Request/response schemas of inventory uploads, fleet views and the release impact preview.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';
import { isoTime, uuidParam } from '../common/query';
import { pageSchema, paginationQuerySchema } from '../common/pagination';
import { isStorableText } from '../common/text';

const filterText = (max: number) =>
  z.string().min(1).max(max).refine(isStorableText, 'must be well-formed Unicode without NUL characters');

export const inventoryAcceptedSchema = z.object({
  changed: z.boolean().describe('Whether the inventory differs from the last one stored'),
  digest: z.string(),
  hooks: z.number().int(),
});
export class InventoryAcceptedDto extends createZodDto(inventoryAcceptedSchema) {}

const LAYERS = ['system', 'user', 'project', 'session', 'plugin', 'managed'] as const;
const TRUST = ['managed', 'trusted', 'modified', 'untrusted', 'disabled'] as const;

export const fleetHooksQuerySchema = paginationQuerySchema.extend({
  groupId: uuidParam().optional(),
  layer: z.enum(LAYERS).optional(),
  trust: z.enum(TRUST).optional().describe('Only hooks with this trust status somewhere (e.g. untrusted, modified)'),
  program: filterText(512).optional().describe("The command's first word, exactly (e.g. curl)"),
  commandContains: filterText(500).optional().describe('Substring of the command, where commands are captured'),
  plugin: filterText(256).optional(),
  hash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
});
export class FleetHooksQueryDto extends createZodDto(fleetHooksQuerySchema) {}

export const fleetHookSchema = z.object({
  hash: z.string(),
  endpoints: z.number().int().describe('Endpoints whose latest inventory has it'),
  layers: z.array(z.string()),
  trust: z.record(z.string(), z.number().int()).describe('Endpoints per trust status'),
  events: z.array(z.string()),
  programs: z.array(z.string()),
  plugins: z.array(z.string()),
  running: z.number().int().describe('Endpoints where it runs under the policy in force'),
  denied: z.boolean().describe('On the known-bad deny list'),
  command: z.string().nullable().describe('One captured command text (redacted), when the capture mode sends it'),
});
export class FleetHookPageDto extends createZodDto(pageSchema(fleetHookSchema)) {}
export type FleetHook = z.infer<typeof fleetHookSchema>;

export const fleetPluginSchema = z.object({
  plugin: z.string(),
  endpoints: z.number().int(),
  hooks: z.number().int(),
  untrusted: z.number().int().describe('Endpoints where one of its hooks is untrusted or modified'),
});
export class FleetPluginListDto extends createZodDto(z.object({ items: z.array(fleetPluginSchema) })) {}

export const changesQuerySchema = paginationQuerySchema.extend({
  endpointId: uuidParam().optional(),
  since: isoTime().optional(),
});
export class ChangesQueryDto extends createZodDto(changesQuerySchema) {}

export const inventoryChangeSchema = z.object({
  id: z.uuid(),
  endpointId: z.uuid(),
  hostname: z.string().nullable().describe("The endpoint's hostname (null when the endpoint no longer exists)"),
  at: z.iso.datetime(),
  digest: z.string(),
  added: z.number().int(),
  removed: z.number().int(),
  changes: z.unknown().describe('{ added: [{key, hash, layer}], removed: [...] } (at most 200 each)'),
});
export class InventoryChangePageDto extends createZodDto(pageSchema(inventoryChangeSchema)) {}

export const endpointInventorySchema = z.object({
  endpointId: z.uuid(),
  digest: z.string(),
  collectedAt: z.iso.datetime(),
  receivedAt: z.iso.datetime(),
  changedAt: z.iso.datetime(),
  inventory: z.unknown().describe('The report as the agent sent it'),
});
export class EndpointInventoryDto extends createZodDto(endpointInventorySchema) {}

export const endpointIdParamSchema = z.object({ id: z.uuid() });
export class EndpointIdParamDto extends createZodDto(endpointIdParamSchema) {}

export const previewQuerySchema = z.object({
  policyVersionId: uuidParam().describe('The version to preview'),
});
export class PreviewQueryDto extends createZodDto(previewQuerySchema) {}
export const groupIdParamSchema = z.object({ groupId: z.uuid() });
export class PreviewGroupParamDto extends createZodDto(groupIdParamSchema) {}

const layerCounts = z.object({ user: z.number(), project: z.number(), plugin: z.number(), session: z.number() });
export const releasePreviewSchema = z.object({
  groupId: z.uuid(),
  policyVersionId: z.uuid(),
  endpoints: z.object({ total: z.number(), known: z.number(), unknown: z.number() }),
  suppressed: layerCounts.extend({ total: z.number(), endpoints: z.number() }),
  hooksTurnedOff: z.array(z.object({ endpointId: z.string(), hostname: z.string() })),
  missingManagedScripts: z.array(z.string()),
  unknownImpact: z.array(
    z.object({ endpointId: z.string(), hostname: z.string(), inventoryAt: z.string().nullable() }),
  ),
  perEndpoint: z.array(
    z.object({
      endpointId: z.string(),
      hostname: z.string(),
      suppressed: layerCounts,
      suppressedKeys: z.array(z.string()),
      hooksTurnedOff: z.boolean(),
      unknown: z.boolean(),
      inventoryAt: z.string().nullable(),
    }),
  ),
  agents: z
    .object({
      requiredContract: z.number().int().describe('The minimum policy/bundle contract the version needs'),
      reasons: z.array(z.string()).describe('Why it needs that contract (one line per contract above 1)'),
      outdated: z
        .array(
          z.object({
            endpointId: z.string(),
            hostname: z.string(),
            agentVersion: z.string().nullable(),
            contractVersion: z
              .number()
              .int()
              .nullable()
              .describe(
                'What its agent reported (null: an agent from before contract reporting, or no status yet; counted as contract 1)',
              ),
            reason: z.string(),
          }),
        )
        .describe('Endpoints whose agent understands an older contract than the version needs'),
    })
    .describe('Version skew (not part of the digest)'),
  digest: z.string().describe('Name this digest to acknowledge the preview when starting the release'),
  impactUnknown: z
    .boolean()
    .describe(
      'The version can suppress hooks or turn them off and some endpoints have no current inventory: their impact ' +
        'is unknown (not zero), and the release needs the acknowledgement',
    ),
  requiresAck: z.boolean().describe('Whether starting this release needs the acknowledgement'),
});
export class ReleasePreviewDto extends createZodDto(releasePreviewSchema) {}

export const denyHashSchema = z
  .object({
    hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    reason: filterText(1000),
  })
  .strict();
export class DenyHashDto extends createZodDto(denyHashSchema) {}
export const deniedHashSchema = z.object({
  hash: z.string(),
  reason: z.string(),
  createdAt: z.iso.datetime(),
  createdBy: z.string().nullable(),
});
export class DeniedHashDto extends createZodDto(deniedHashSchema) {}
export class RemovedDto extends createZodDto(z.object({ removed: z.literal(true) })) {}
export class DeniedHashListDto extends createZodDto(z.object({ items: z.array(deniedHashSchema) })) {}
export const hashParamSchema = z.object({ hash: z.string().regex(/^sha256:[0-9a-f]{64}$/) });
export class HashParamDto extends createZodDto(hashParamSchema) {}

export const inventoryFindingSchema = z.object({
  kind: z.enum(['known_bad_hook', 'managed_hook_missing']),
  endpointId: z.uuid(),
  hostname: z.string(),
  hash: z.string().nullable(),
  key: z.string().nullable(),
  detail: z.string(),
});
export class InventoryFindingListDto extends createZodDto(z.object({ items: z.array(inventoryFindingSchema) })) {}
export const findingsQuerySchema = z.object({ groupId: uuidParam().optional(), endpointId: uuidParam().optional() });
export class InventoryFindingsQueryDto extends createZodDto(findingsQuerySchema) {}
