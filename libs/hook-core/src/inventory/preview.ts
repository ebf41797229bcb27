// Release impact preview: from endpoints' latest inventories, what a policy version would change on each of them.
// Pure: the API feeds it stored inventories; the same rules as the engine's discovery (allow_managed_hooks_only
// suppresses user, project, session and plugin hooks; a pinned `[features] hooks` decides the feature).
import { canonicalJson } from '../trust/canonical-json';
import { createHash } from 'node:crypto';
import type { PolicyDocument } from '../policy/schema';
import { endpointContract, requiredContract } from '../policy/contract';
import type { InventoryDocument } from './schema';

type Layer = 'user' | 'project' | 'plugin' | 'session';
const SUPPRESSIBLE: readonly Layer[] = ['user', 'project', 'plugin', 'session'];

/** What the preview needs of an inventory (policy-independent: stored at ingest, so a preview reads no document). */
export interface InventorySummary {
  hooksEnabled: boolean;
  /** Running non-managed hooks by layer: what allow_managed_hooks_only would suppress. */
  suppressible: Record<Layer, number>;
  /** Their keys, sorted (by code unit, as Array.prototype.sort), as the JSON text of the array (JSON.stringify):
   * stored so, and spliced into the digest and the response without being parsed. */
  suppressibleKeysJson: string;
}

/** One endpoint as the preview sees it. */
export interface PreviewEndpoint {
  endpointId: string;
  hostname: string;
  /** Latest inventory (the document or its summary) and when it arrived, or null when it never reported one. */
  inventory: (({ doc: InventoryDocument } | { summary: InventorySummary }) & { receivedAt: Date }) | null;
  /** The agent version and contract it last reported (null contract: an agent from before contract reporting). */
  agentVersion?: string;
  contractVersion?: number | null;
}

/** An endpoint whose agent understands an older contract than the version needs. */
export interface OutdatedAgent {
  endpointId: string;
  hostname: string;
  agentVersion: string | null;
  /** What it reported (null: nothing, an agent from before contract reporting, which understands contract 1). */
  contractVersion: number | null;
  reason: string;
}

export interface PreviewOptions {
  /** The release the preview is for: bound into the digest, so an acknowledgement names one group and version. */
  release?: { groupId: string; policyVersionId: string };
  now: Date;
  /** Inventories older than this are "unknown impact". */
  staleAfterMs: number;
  /** Paths of the files the version ships (relative to managed_dir). */
  files: readonly string[];
}

export interface EndpointImpact {
  endpointId: string;
  hostname: string;
  /** Hooks running today that the version would stop, by layer. */
  suppressed: Record<Layer, number>;
  /** Their keys (for comparing with what the engine then skips): parsed from suppressedKeysJson when first read. */
  readonly suppressedKeys: string[];
  /** The same keys as JSON array text (what the digest and a serializer use). */
  suppressedKeysJson: string;
  /** Hooks on the endpoint turn off entirely (`[features] hooks = false`). */
  hooksTurnedOff: boolean;
  /** The inventory is missing or older than the stale bound. */
  unknown: boolean;
  inventoryAt: string | null;
}

export interface ReleasePreview {
  endpoints: { total: number; known: number; unknown: number };
  suppressed: Record<Layer, number> & { total: number; endpoints: number };
  hooksTurnedOff: Array<{ endpointId: string; hostname: string }>;
  missingManagedScripts: string[];
  unknownImpact: Array<{ endpointId: string; hostname: string; inventoryAt: string | null }>;
  perEndpoint: EndpointImpact[];
  /** Version skew: the contract the version needs and the endpoints whose agent is older (not part of the digest). */
  agents: { requiredContract: number; reasons: string[]; outdated: OutdatedAgent[] };
  /** sha256 over the release (group, version) and the impact: what an acknowledgement names. */
  digest: string;
}

// The preview's view of an inventory document: hooks enabled, and the running non-managed hooks by layer with keys.
export function inventorySummary(doc: Pick<InventoryDocument, 'hooksEnabled' | 'hooks'>): InventorySummary {
  const suppressible: Record<Layer, number> = { user: 0, project: 0, plugin: 0, session: 0 };
  const suppressibleKeys: string[] = [];
  for (const h of doc.hooks) {
    if (h.managed || h.fate !== 'run' || !SUPPRESSIBLE.includes(h.layer as Layer)) continue;
    suppressible[h.layer as Layer]++;
    suppressibleKeys.push(h.key);
  }
  suppressibleKeys.sort();
  return { hooksEnabled: doc.hooksEnabled, suppressible, suppressibleKeysJson: JSON.stringify(suppressibleKeys) };
}

/** Surrogate code units: where code-point order (how PostgreSQL's "C" collation sorts) and code-unit order differ. */
const SURROGATE = /[\uD800-\uDFFF]/;

// Stored keys text in code-unit order: as is (ingest sorts them so; other text sorts the same without characters
// beyond U+FFFF), else parsed, sorted and written again.
function sortedKeysJson(json: string): string {
  return SURROGATE.test(json) ? JSON.stringify((JSON.parse(json) as string[]).slice().sort()) : json;
}

// An endpoint's impact whose `suppressedKeys` is parsed from its JSON text only when read (a 10,000-endpoint preview
// is serialized from the text; only callers that look at the keys pay for them). A class: one shape for all of them.
class Impact implements EndpointImpact {
  endpointId: string;
  hostname: string;
  suppressed: Record<Layer, number>;
  suppressedKeysJson: string;
  hooksTurnedOff: boolean;
  unknown: boolean;
  inventoryAt: string | null;
  #keys: string[] | null = null;

  // Starts with the fields of an impact (keys as JSON text).
  constructor(f: Omit<EndpointImpact, 'suppressedKeys'>) {
    this.endpointId = f.endpointId;
    this.hostname = f.hostname;
    this.suppressed = f.suppressed;
    this.suppressedKeysJson = f.suppressedKeysJson;
    this.hooksTurnedOff = f.hooksTurnedOff;
    this.unknown = f.unknown;
    this.inventoryAt = f.inventoryAt;
  }

  // The keys, parsed once from their JSON text.
  get suppressedKeys(): string[] {
    return (this.#keys ??= JSON.parse(this.suppressedKeysJson) as string[]);
  }

  // JSON.stringify of an impact includes its keys.
  toJSON(): Omit<EndpointImpact, 'suppressedKeysJson'> {
    const { suppressedKeysJson: _j, ...rest } = { ...this };
    return { ...rest, suppressedKeys: this.suppressedKeys };
  }
}

/** Path characters after a managed_dir prefix in a command. */
const PATH_CHARS = /[^\s'"`;|&<>()]+/y;

// Managed-directory scripts the policy's commands reference that the version does not ship.
export function missingManagedScripts(policy: PolicyDocument, files: readonly string[]): string[] {
  const shipped = new Set(files);
  const missing = new Set<string>();
  const hooks = policy.hooks ?? {};
  const dirs = [hooks.managed_dir, hooks.windows_managed_dir].filter(
    (d): d is string => typeof d === 'string' && d !== '',
  );
  for (const [event, groups] of Object.entries(hooks)) {
    if (event === 'managed_dir' || event === 'windows_managed_dir' || !Array.isArray(groups)) continue;
    for (const group of groups) {
      for (const handler of group.hooks) {
        for (const command of [handler.command, handler.command_windows, handler.commandWindows]) {
          if (!command) continue;
          for (const dir of dirs) {
            const prefix = dir.endsWith('/') || dir.endsWith('\\') ? dir : `${dir}${dir.includes('\\') ? '\\' : '/'}`;
            let from = 0;
            for (;;) {
              const at = command.indexOf(prefix, from);
              if (at < 0) break;
              PATH_CHARS.lastIndex = at + prefix.length;
              const m = PATH_CHARS.exec(command);
              from = at + prefix.length;
              if (!m) continue;
              const rel = m[0].replace(/\\/g, '/');
              if (!shipped.has(rel)) missing.add(rel);
            }
          }
        }
      }
    }
  }
  return [...missing].sort();
}

// Whether hooks would be on under the policy for an endpoint that reports `current` today.
function hooksOnUnder(policy: PolicyDocument, current: boolean): boolean {
  const pinned = policy.features?.hooks ?? policy.features?.zerocode_hooks;
  return typeof pinned === 'boolean' ? pinned : current;
}

// Whether releasing `policy` can suppress a hook or turn hooks off anywhere (a policy without
// allow_managed_hooks_only and without `[features] hooks = false` cannot: its preview is empty whatever the fleet).
export function releaseCanSuppress(policy: PolicyDocument): boolean {
  return policy.allow_managed_hooks_only === true || hooksOnUnder(policy, true) === false;
}

// The endpoints whose agent understands an older contract than `policy` needs.
export function outdatedAgents(
  policy: PolicyDocument,
  endpoints: readonly PreviewEndpoint[],
): ReleasePreview['agents'] {
  const need = requiredContract(policy);
  const outdated: OutdatedAgent[] = [];
  for (const e of endpoints) {
    const has = endpointContract(e.contractVersion);
    if (has >= need.contract) continue;
    const reported = e.contractVersion ?? null;
    outdated.push({
      endpointId: e.endpointId,
      hostname: e.hostname,
      agentVersion: e.agentVersion ?? null,
      contractVersion: reported,
      reason:
        reported === null
          ? `agent ${e.agentVersion ?? '(unknown version)'} reports no contract version (an agent from before contract reporting, or one that has not reported status yet: counted as contract 1); this version needs contract ${need.contract}`
          : `agent ${e.agentVersion ?? '(unknown version)'} understands contract ${reported}; this version needs contract ${need.contract}`,
    });
  }
  return { requiredContract: need.contract, reasons: need.reasons, outdated };
}

// Computes the impact of releasing `policy` to these endpoints.
export function previewRelease(
  policy: PolicyDocument,
  endpoints: readonly PreviewEndpoint[],
  options: PreviewOptions,
): ReleasePreview {
  const managedOnly = policy.allow_managed_hooks_only === true;
  const zero = (): Record<Layer, number> => ({ user: 0, project: 0, plugin: 0, session: 0 });
  const totals = zero();
  let suppressedEndpoints = 0;
  const perEndpoint: EndpointImpact[] = [];
  for (const e of endpoints) {
    const inv = e.inventory;
    const unknown = !inv || options.now.getTime() - inv.receivedAt.getTime() > options.staleAfterMs;
    const impact = new Impact({
      endpointId: e.endpointId,
      hostname: e.hostname,
      suppressed: zero(),
      suppressedKeysJson: '[]',
      hooksTurnedOff: false,
      unknown,
      inventoryAt: inv ? inv.receivedAt.toISOString() : null,
    });
    if (inv) {
      const sum = 'summary' in inv ? inv.summary : inventorySummary(inv.doc);
      const on = hooksOnUnder(policy, sum.hooksEnabled);
      impact.hooksTurnedOff = sum.hooksEnabled && !on;
      if (managedOnly && on) {
        impact.suppressed = { ...sum.suppressible };
        impact.suppressedKeysJson = sortedKeysJson(sum.suppressibleKeysJson);
      }
      const n = SUPPRESSIBLE.reduce((sum, l) => sum + impact.suppressed[l], 0);
      if (n > 0) suppressedEndpoints++;
      for (const l of SUPPRESSIBLE) totals[l] += impact.suppressed[l];
    }
    perEndpoint.push(impact);
  }
  const summary = {
    endpoints: {
      total: endpoints.length,
      known: perEndpoint.filter((p) => !p.unknown).length,
      unknown: perEndpoint.filter((p) => p.unknown).length,
    },
    suppressed: { ...totals, total: SUPPRESSIBLE.reduce((s, l) => s + totals[l], 0), endpoints: suppressedEndpoints },
    hooksTurnedOff: perEndpoint
      .filter((p) => p.hooksTurnedOff)
      .map((p) => ({ endpointId: p.endpointId, hostname: p.hostname })),
    missingManagedScripts: missingManagedScripts(policy, options.files),
    unknownImpact: perEndpoint
      .filter((p) => p.unknown)
      .map((p) => ({ endpointId: p.endpointId, hostname: p.hostname, inventoryAt: p.inventoryAt })),
  };
  const digest = previewDigest(options.release ?? null, summary, perEndpoint);
  return { ...summary, perEndpoint, agents: outdatedAgents(policy, endpoints), digest };
}

// sha256 over canonicalJson({ release, ...summary, perEndpoint: [{ id, s, off }] }), written out in canonical key
// order and hashed in pieces (the per-endpoint part is most of a 10,000-endpoint preview: no recursive walk of it).
function previewDigest(
  release: PreviewOptions['release'] | null,
  summary: Omit<ReleasePreview, 'perEndpoint' | 'agents' | 'digest'>,
  perEndpoint: readonly EndpointImpact[],
): string {
  const hash = createHash('sha256');
  const rest: Record<string, unknown> = { ...summary, release };
  const keys = [...Object.keys(rest), 'perEndpoint'].sort();
  hash.update('{');
  keys.forEach((k, i) => {
    if (i > 0) hash.update(',');
    hash.update(`${JSON.stringify(k)}:`);
    if (k !== 'perEndpoint') {
      hash.update(canonicalJson(rest[k]));
      return;
    }
    // canonicalJson of { id, off, s } (keys in code-unit order; an array of strings is JSON.stringify's own form, the
    // stored keys text).
    let chunk = '[';
    perEndpoint.forEach((p, j) => {
      chunk += `${j > 0 ? ',' : ''}{"id":${JSON.stringify(p.endpointId)},"off":${p.hooksTurnedOff},"s":${p.suppressedKeysJson}}`;
      if (chunk.length > 65_536) {
        hash.update(chunk);
        chunk = '';
      }
    });
    hash.update(`${chunk}]`);
  });
  hash.update('}');
  return `sha256:${hash.digest('hex')}`;
}
