// Computes what apply would change: desired state (the directory) against the server, in dependency order.
import { canonicalJson } from '@hookwarden/hook-core';
import { ApiError, type ApiClient } from '../client/api-client';
import { fetchPreview, type PreviewSummary, summarizePreview } from '../client/preview';
import type { AuditSettings, GroupView, PolicyView } from '../client/types';
import { CliError, type Problem } from '../cli/errors';
import { sha256Hex } from './content';
import { diffContent, type DiffFile, type FileChange } from './diff';
import type { DesiredState, Rollout } from './layout';
import { currentRelease, liveShadowRelease, type ServerState, versionWithContent } from './server-state';

export const PLAN_FORMAT = 'hookwarden-plan/1';

/** A release a group is being served, as the plan saw it. */
export interface ServedRelease {
  releaseId: string;
  policy: string | null;
  policyVersion: number;
  status: string;
}

export type Step =
  | { kind: 'group.create'; group: string; description: string }
  | {
      kind: 'group.update';
      group: string;
      groupId: string;
      before: { description: string };
      after: { description: string };
    }
  | {
      kind: 'capture.update';
      group: string;
      groupId: string | null;
      before: AuditSettings | null;
      after: AuditSettings;
    }
  | { kind: 'policy.create'; policy: string; group: string; description: string }
  | {
      kind: 'policy.update';
      policy: string;
      policyId: string;
      before: { description: string; group: string };
      after: { description: string; group: string };
    }
  | {
      kind: 'version.create';
      policy: string;
      policyId: string | null;
      folder: string;
      /** The server's latest version this edit is based on (0: none yet) and its digest. */
      baseVersion: number;
      baseDigest: string | null;
      digest: string;
      changes: FileChange[];
      diff: string;
    }
  | {
      kind: 'release.create';
      policy: string;
      group: string;
      /** The version to release: an existing number, or null for the version this plan creates. */
      version: number | null;
      digest: string;
      rollout: Exclude<Rollout, { strategy: 'none' }>;
      current: ServedRelease | null;
      /**
       * The release impact preview (GET /v1/groups/:id/release-preview) of this version in this group; null when it
       * cannot be computed yet (previewNote says why: a new version, or a group the plan creates).
       */
      preview: PreviewSummary | null;
      previewNote: string | null;
    }
  | { kind: 'policy.delete'; policy: string; policyId: string }
  | { kind: 'group.delete'; group: string; groupId: string };

/** Something on the server the directory does not mention. */
export interface ServerOnly {
  kind: 'group' | 'policy';
  name: string;
  id: string;
  /** Why --prune cannot remove it (null: it can). */
  blocked: string | null;
}

export interface Plan {
  format: typeof PLAN_FORMAT;
  server: string;
  createdAt: string;
  root: string;
  prune: boolean;
  /** sha256 of the desired state the plan was made from (a changed directory invalidates a saved plan). */
  desiredDigest: string;
  steps: Step[];
  serverOnly: ServerOnly[];
  notes: string[];
  /** Staged rollouts of the directory's versions still rolling on the server (apply --watch follows them too). */
  rolling: string[];
  warnings: Problem[];
}

// The fingerprint of a desired state (names, settings, rollout and version digests).
export function desiredDigest(d: DesiredState): string {
  return `sha256:${sha256Hex(
    canonicalJson({
      groups: d.groups.map((g) => ({ name: g.name, description: g.description, capture: g.capture ?? null })),
      policies: d.policies.map((p) => ({
        name: p.name,
        description: p.description,
        group: p.group,
        rollout: p.rollout,
        digest: p.content.digest,
      })),
    }),
  )}`;
}

const sameSettings = (a: AuditSettings, b: AuditSettings): boolean =>
  a.capture === b.capture &&
  a.maxExcerptBytes === b.maxExcerptBytes &&
  a.useDefaultRedact === b.useDefaultRedact &&
  canonicalJson(a.redactPatterns) === canonicalJson(b.redactPatterns);

// The server's files of a version as diff sides.
function serverFiles(files: Array<{ path: string; sha256: string; mode: number; content?: string }>): DiffFile[] {
  return files.map((f) => ({
    path: f.path,
    sha256: f.sha256,
    mode: f.mode,
    content: Buffer.from(f.content ?? '', 'base64'),
  }));
}

// Why a server-only group cannot be deleted (null when it can).
async function groupBlocker(
  client: ApiClient,
  g: GroupView,
  state: ServerState,
  keptPolicies: PolicyView[],
): Promise<string | null> {
  const uses: string[] = [];
  const policies = keptPolicies.filter((p) => p.groupId === g.id).length;
  if (policies) uses.push(`${policies} policy(ies)`);
  const releases =
    state.releases.get(g.id) ??
    (await client.json('GET', '/v1/groups/{groupId}/releases', { path: { groupId: g.id } })).items;
  if (releases.length) uses.push(`${releases.length} release(s)`);
  const endpoints = await client.json('GET', '/v1/endpoints', {
    query: { groupId: g.id, limit: 1 },
  });
  if (endpoints.items.length) uses.push('enrolled endpoints');
  try {
    const secrets = await client.json('GET', '/v1/groups/{groupId}/enrollment-secrets', { path: { groupId: g.id } });
    if (secrets.items.length) uses.push(`${secrets.items.length} enrollment secret(s)`);
  } catch (err) {
    // Enrollment secrets are admin-only: a read-only (auditor) plan cannot see them; apply (admin) checks again.
    if (!(err instanceof ApiError && err.status === 403)) throw err;
  }
  return uses.length ? `in use (${uses.join(', ')})` : null;
}

// Compares the desired state with the server and lists the steps of an apply.
export async function computePlan(
  client: ApiClient,
  desired: DesiredState,
  state: ServerState,
  options: { prune: boolean },
): Promise<Plan> {
  const steps: Step[] = [];
  const notes: string[] = [];
  const rolling: string[] = [];
  const problems: Problem[] = [];
  const groupByName = new Map(state.groups.map((g) => [g.name, g]));
  const groupById = new Map(state.groups.map((g) => [g.id, g]));
  const policyByName = new Map(state.policies.map((p) => [p.name, p]));
  const policyById = new Map(state.policies.map((p) => [p.id, p]));

  // Groups and their capture settings.
  for (const g of desired.groups) {
    const server = groupByName.get(g.name);
    if (!server) {
      steps.push({ kind: 'group.create', group: g.name, description: g.description });
      if (g.capture)
        steps.push({ kind: 'capture.update', group: g.name, groupId: null, before: null, after: g.capture });
      continue;
    }
    if (server.description !== g.description) {
      steps.push({
        kind: 'group.update',
        group: g.name,
        groupId: server.id,
        before: { description: server.description },
        after: { description: g.description },
      });
    }
    const current = state.capture.get(server.id);
    if (g.capture && current && !sameSettings(current, g.capture)) {
      steps.push({ kind: 'capture.update', group: g.name, groupId: server.id, before: current, after: g.capture });
    }
  }

  // Policies (create/update), then their versions, then releases.
  const versionSteps: Step[] = [];
  const releaseSteps: Step[] = [];
  for (const p of desired.policies) {
    const server = policyByName.get(p.name);
    if (!server) steps.push({ kind: 'policy.create', policy: p.name, group: p.group, description: p.description });
    else {
      const serverGroup = groupById.get(server.groupId)?.name ?? server.groupId;
      if (server.description !== p.description || serverGroup !== p.group) {
        steps.push({
          kind: 'policy.update',
          policy: p.name,
          policyId: server.id,
          before: { description: server.description, group: serverGroup },
          after: { description: p.description, group: p.group },
        });
      }
    }
    const latest = server ? state.latest.get(server.id) : undefined;
    let newVersion = false;
    if (!latest || latest.digest !== p.content.digest) {
      newVersion = true;
      const before = latest && server ? await versionWithContent(client, server.id, latest.number) : undefined;
      const { text, changes } = diffContent(before && { toml: before.toml, files: serverFiles(before.files) }, {
        toml: p.content.canonicalToml,
        files: p.content.files,
      });
      versionSteps.push({
        kind: 'version.create',
        policy: p.name,
        policyId: server?.id ?? null,
        folder: p.folder,
        baseVersion: latest?.number ?? 0,
        baseDigest: latest?.digest ?? null,
        digest: p.content.digest,
        changes,
        diff: text,
      });
    }
    if (p.rollout.strategy === 'none') continue;
    const group = groupByName.get(p.group);
    const served = group ? currentRelease(state.releases.get(group.id)) : undefined;
    const servedView: ServedRelease | null = served
      ? {
          releaseId: served.id,
          policy: policyById.get(served.policyId)?.name ?? null,
          policyVersion: served.policyVersion,
          status: served.status,
        }
      : null;
    const upToDate =
      !newVersion && served && server && served.policyId === server.id && served.policyVersion === latest?.number;
    if (upToDate) {
      if (served.status === 'rolling') {
        rolling.push(served.id);
        notes.push(`release ${served.id} of policy "${p.name}" is still rolling out in group "${p.group}"`);
      }
      if (served.status === 'paused')
        notes.push(
          `release ${served.id} of policy "${p.name}" in group "${p.group}" is paused (${served.pausedReason ?? 'no reason'})`,
        );
      continue;
    }
    if (p.rollout.strategy === 'shadow') {
      // The version runs beside what the group enforces until an admin promotes or aborts it (not declarative).
      const shadow = group ? liveShadowRelease(state.releases.get(group.id)) : undefined;
      if (shadow && !newVersion && server && shadow.policyId === server.id && shadow.policyVersion === latest?.number) {
        notes.push(
          `shadow release ${shadow.id} of policy "${p.name}" version ${shadow.policyVersion} is live in group ` +
            `"${p.group}": hookwarden releases shadow-report ${shadow.id}, then promote or abort it`,
        );
        continue;
      }
      if (shadow) {
        problems.push({
          file: `${p.folder}/policy.toml`,
          path: 'rollout',
          message:
            `group "${p.group}" runs shadow release ${shadow.id} (policy ${policyById.get(shadow.policyId)?.name ?? shadow.policyId} ` +
            `version ${shadow.policyVersion}): promote or abort it (hookwarden releases promote|abort) before a new shadow release`,
        });
        continue;
      }
    }
    if (served && (served.status === 'rolling' || served.status === 'paused') && p.rollout.strategy === 'staged') {
      problems.push({
        file: `${p.folder}/policy.toml`,
        path: 'rollout',
        message:
          `group "${p.group}" is still rolling out release ${served.id} (${served.status}): ` +
          `finish it (hookwarden releases advance) or abort it before a new staged release`,
      });
      continue;
    }
    const lastForVersion =
      group && server && latest && !newVersion
        ? state.releases.get(group.id)?.find((r) => r.policyId === server.id && r.policyVersion === latest.number)
        : undefined;
    if (lastForVersion?.status === 'aborted')
      notes.push(
        `policy "${p.name}" version ${latest!.number} was aborted in group "${p.group}"; apply releases it again`,
      );
    let preview: PreviewSummary | null = null;
    let previewNote: string | null = null;
    if (p.rollout.strategy === 'shadow')
      previewNote = 'a shadow release enforces nothing: its impact is acknowledged when it is promoted';
    else if (!group) previewNote = 'the group is created by this plan: no endpoints yet, nothing to preview';
    else if (server && server.groupId !== group.id)
      previewNote = `the policy moves to group "${p.group}" in this plan: its impact is computed by apply`;
    else if (newVersion || !latest)
      previewNote = 'the version does not exist on the server yet: its impact is computed by apply, after creating it';
    else preview = summarizePreview(await fetchPreview(client, group.id, latest.id));
    releaseSteps.push({
      kind: 'release.create',
      policy: p.name,
      group: p.group,
      version: newVersion ? null : latest!.number,
      digest: p.content.digest,
      rollout: p.rollout,
      current: servedView,
      preview,
      previewNote,
    });
  }
  steps.push(...versionSteps, ...releaseSteps);
  if (problems.length) throw new CliError('the plan cannot be carried out', problems);

  // Server-only things: reported; removed only with --prune (policies first, then groups).
  const desiredPolicies = new Set(desired.policies.map((p) => p.name));
  const desiredGroups = new Set(desired.groups.map((g) => g.name));
  const serverOnly: ServerOnly[] = [];
  const extraPolicies = state.policies.filter((p) => !desiredPolicies.has(p.name));
  for (const p of extraPolicies) {
    serverOnly.push({
      kind: 'policy',
      name: p.name,
      id: p.id,
      blocked: p.latestVersion > 0 ? `has ${p.latestVersion} version(s), which are immutable` : null,
    });
  }
  const removable = new Set(serverOnly.filter((s) => s.blocked === null).map((s) => s.id));
  const keptPolicies = state.policies.filter(
    (p) => desiredPolicies.has(p.name) || !(options.prune && removable.has(p.id)),
  );
  // A desired policy moving into or out of a group counts where it will be.
  const keptAfter = keptPolicies.map((p) => {
    const d = desired.policies.find((x) => x.name === p.name);
    const g = d ? groupByName.get(d.group) : undefined;
    return g ? { ...p, groupId: g.id } : p;
  });
  for (const g of state.groups.filter((x) => !desiredGroups.has(x.name) && !x.isDefault)) {
    serverOnly.push({
      kind: 'group',
      name: g.name,
      id: g.id,
      blocked: await groupBlocker(client, g, state, keptAfter),
    });
  }
  if (options.prune) {
    for (const s of serverOnly.filter((x) => x.blocked === null)) {
      steps.push(
        s.kind === 'policy'
          ? { kind: 'policy.delete', policy: s.name, policyId: s.id }
          : { kind: 'group.delete', group: s.name, groupId: s.id },
      );
    }
  }
  return {
    format: PLAN_FORMAT,
    server: client.baseUrl,
    createdAt: new Date().toISOString(),
    root: desired.root,
    prune: options.prune,
    desiredDigest: desiredDigest(desired),
    steps,
    serverOnly,
    notes,
    rolling,
    warnings: desired.warnings,
  };
}
