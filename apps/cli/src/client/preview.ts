// The release impact preview (GET /v1/groups/:id/release-preview): fetching it, its compact form kept in plans,
// its text, and recognising the API's 428 "acknowledge the preview" answer to POST /v1/groups/:id/releases.
import { ApiError, type ApiClient } from './api-client';
import type { ReleasePreviewView } from './types';

/** The preview without the per-endpoint detail (what a plan keeps and prints). */
export type PreviewSummary = Omit<ReleasePreviewView, 'perEndpoint'>;

const DIGEST = /^sha256:[0-9a-f]{64}$/;

// True for a preview digest (sha256:<64 hex>).
export function isPreviewDigest(text: string): boolean {
  return DIGEST.test(text);
}

// The preview of releasing a policy version to a group.
export function fetchPreview(client: ApiClient, groupId: string, policyVersionId: string): Promise<ReleasePreviewView> {
  return client.json<ReleasePreviewView>('GET', `/v1/groups/${groupId}/release-preview`, {
    query: { policyVersionId },
    timeoutMs: 120_000,
  });
}

// The preview without perEndpoint.
export function summarizePreview(p: ReleasePreviewView): PreviewSummary {
  const { perEndpoint: _omit, ...rest } = p;
  return rest;
}

// True when the API refused a release for want of an acknowledged preview (428 naming previewAck).
export function isPreviewAckRequired(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || err.status !== 428) return false;
  const d = err.details;
  return (
    Array.isArray(d) &&
    d.some((x) => x !== null && typeof x === 'object' && (x as { field?: unknown }).field === 'previewAck')
  );
}

const names = (xs: Array<{ hostname: string }>, max = 10): string =>
  xs
    .slice(0, max)
    .map((x) => x.hostname)
    .join(', ') + (xs.length > max ? `, … (${xs.length - max} more)` : '');

// The impact as indented lines (no trailing newline).
export function previewLines(p: PreviewSummary, indent = ''): string[] {
  const s = p.suppressed;
  const counted =
    `${s.total} hook(s) on ${s.endpoints} endpoint(s) ` +
    `(user ${s.user}, project ${s.project}, plugin ${s.plugin}, session ${s.session})`;
  // Unknown is not zero: endpoints without a current inventory are said to be unknown, never counted as unaffected.
  const suppressed = !p.impactUnknown
    ? counted
    : p.endpoints.known === 0
      ? `unknown: none of the ${p.endpoints.unknown} endpoint(s) has a current inventory`
      : `${counted} of the ${p.endpoints.known} with a current inventory; unknown on ${p.endpoints.unknown} endpoint(s)`;
  const out = [
    `${indent}endpoints: ${p.endpoints.total} (${p.endpoints.known} with a current inventory, ${p.endpoints.unknown} unknown)`,
    `${indent}suppressed by allow_managed_hooks_only: ${suppressed}`,
    `${indent}hooks turned off ([features] hooks = false): ${
      p.hooksTurnedOff.length ? `${p.hooksTurnedOff.length} endpoint(s): ${names(p.hooksTurnedOff)}` : 'none'
    }`,
    `${indent}missing managed scripts: ${
      p.missingManagedScripts.length
        ? p.missingManagedScripts.slice(0, 20).join(', ') +
          (p.missingManagedScripts.length > 20 ? `, … (${p.missingManagedScripts.length - 20} more)` : '')
        : 'none'
    }`,
    `${indent}unknown impact (no or stale inventory): ${
      p.unknownImpact.length ? `${p.unknownImpact.length} endpoint(s): ${names(p.unknownImpact)}` : 'none'
    }`,
    ...(p.agents
      ? [
          `${indent}agents older than this version needs (contract ${p.agents.requiredContract}): ${
            p.agents.outdated.length ? `${p.agents.outdated.length} endpoint(s): ${names(p.agents.outdated)}` : 'none'
          }`,
        ]
      : []),
    `${indent}requires acknowledgement: ${p.requiresAck ? 'yes' : 'no'}${
      p.impactUnknown ? ', the impact on endpoints without a current inventory is unknown' : ''
    } (preview ${p.digest})`,
  ];
  return out;
}
