// The API's response shapes the CLI reads (fields the CLI uses; the OpenAPI document at /docs has all of them).

export interface GroupView {
  id: string;
  name: string;
  description: string;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface PolicyView {
  id: string;
  name: string;
  description: string;
  groupId: string;
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface DiagnosticView {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  path?: string;
  field?: string;
  line?: number;
  column?: number;
}

export interface VersionSummary {
  id: string;
  policyId: string;
  number: number;
  digest: string;
  message: string;
  authorId: string | null;
  authorName: string;
  createdAt: string;
  warnings: DiagnosticView[];
  fileCount: number;
}

export interface VersionFileView {
  path: string;
  sha256: string;
  size: number;
  mode: number;
  content?: string;
}

export interface VersionView extends VersionSummary {
  toml: string;
  policy: Record<string, unknown>;
  files: VersionFileView[];
}

export interface FileDiff {
  path: string;
  status: string;
  oldMode: number | null;
  newMode: number | null;
  binary: boolean;
  patch: string;
}

export interface DiffView {
  policyId: string;
  from: number;
  to: number;
  fromDigest: string;
  toDigest: string;
  toml: FileDiff;
  files: FileDiff[];
}

export interface ReleaseView {
  id: string;
  groupId: string;
  policyVersionId: string;
  policyId: string;
  policyVersion: number;
  revision: number;
  strategy: 'immediate' | 'staged';
  /** rolling | paused | completed | aborted | superseded */
  status: string;
  rings: number[];
  currentRing: number;
  ringIntervalSec: number;
  maxApplyFailureRate: number;
  maxHookFailureRate: number | null;
  minHookRuns: number;
  minReportingEndpoints: number;
  previousReleaseId: string | null;
  digest: string;
  keyId: string;
  pausedReason: string | null;
  createdBy: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface RolloutView {
  release: ReleaseView;
  rings: Array<{
    ring: number;
    percent: number;
    active: boolean;
    versions: Array<{
      releaseId: string;
      revision: number;
      policyVersion: number;
      assigned: number;
      applied: number;
      failed: number;
      stale: number;
    }>;
  }>;
  gate: {
    applyFailureRate: number | null;
    hookFailureRate: number | null;
    endpointsOnRevision: number;
    hookRunsOnRevision: number;
    hookRunsNotCounted: number;
    hookFormula: string;
    appliedEndpoints: number;
    reportingEndpoints: number;
    minReportingEndpoints: number;
    hookEndpoints: Array<{
      endpointId: string;
      hostname: string;
      ran: number;
      failed: number;
      failureRate: number | null;
      reporting: boolean;
    }>;
    hookReason: string | null;
  };
}

export interface AuditSettings {
  capture: 'none' | 'digests' | 'excerpts';
  maxExcerptBytes: number;
  redactPatterns: string[];
  useDefaultRedact: boolean;
}

export interface AuditCheckpoint {
  kind: string;
  seq: string;
  hash: string;
  at: string;
  keyId: string;
  signature: string;
}

export interface VerifyResult {
  ok: boolean;
  checked: number;
  firstBrokenSeq?: string;
  problem?: string;
  reason?: string;
  checkpoint?: AuditCheckpoint;
}

export interface PublicKeyList {
  keys: Array<{ kid: string; publicKeyPem: string }>;
  keyId: string;
  signature: string;
}

export interface PreviewLayerCounts {
  user: number;
  project: number;
  plugin: number;
  session: number;
}

/** GET /v1/groups/:id/release-preview: the impact of releasing a version, from the latest inventories. */
export interface ReleasePreviewView {
  groupId: string;
  policyVersionId: string;
  endpoints: { total: number; known: number; unknown: number };
  suppressed: PreviewLayerCounts & { total: number; endpoints: number };
  hooksTurnedOff: Array<{ endpointId: string; hostname: string }>;
  missingManagedScripts: string[];
  unknownImpact: Array<{ endpointId: string; hostname: string; inventoryAt: string | null }>;
  perEndpoint?: Array<{
    endpointId: string;
    hostname: string;
    suppressed: PreviewLayerCounts;
    suppressedKeys: string[];
    hooksTurnedOff: boolean;
    unknown: boolean;
    inventoryAt: string | null;
  }>;
  /** Version skew (absent from APIs before contract reporting). */
  agents?: {
    requiredContract: number;
    reasons: string[];
    outdated: Array<{
      endpointId: string;
      hostname: string;
      agentVersion: string | null;
      contractVersion: number | null;
      reason: string;
    }>;
  };
  digest: string;
  /** The version can suppress or turn off hooks and some endpoints have no current inventory (impact unknown). */
  impactUnknown?: boolean;
  requiresAck: boolean;
}
