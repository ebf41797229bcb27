// Carries out a plan in dependency order (groups, capture settings, policies, versions, releases, prunes), after
// checking that neither the directory nor the server changed since the plan was made.
import { canonicalJson } from '@hookwarden/hook-core';
import { ApiError, type ApiClient } from '../client/api-client';
import { fetchPreview, isPreviewAckRequired, previewLines, summarizePreview } from '../client/preview';
import type { ReleaseView } from '../client/types';
import { CliError, type Problem } from '../cli/errors';
import { gitInfo, versionMessage } from './git';
import type { DesiredState } from './layout';
import { describeStep } from './render';
import type { Plan, Step } from './plan';

// The identity of a step for comparing a saved plan with a fresh one (diff text aside: it follows from the rest;
// a release's impact preview aside: apply acknowledges the one the saved plan showed, and the API refuses the
// release when the impact changed since).
function stepKey(s: Step): string {
  if (s.kind === 'version.create') return canonicalJson({ ...s, diff: undefined });
  if (s.kind === 'release.create') return canonicalJson({ ...s, preview: undefined, previewNote: undefined });
  return canonicalJson(s);
}

// The fresh plan with the release previews the saved plan showed (the steps match: checkSavedPlan passed).
export function withSavedPreviews(saved: Plan, fresh: Plan): Plan {
  return {
    ...fresh,
    steps: fresh.steps.map((s, i) => {
      const old = saved.steps[i];
      if (s.kind !== 'release.create' || old?.kind !== 'release.create') return s;
      return { ...s, preview: old.preview ?? null, previewNote: old.previewNote ?? s.previewNote };
    }),
  };
}

// Refuses, before anything is applied, a plan with a release whose impact preview requires an acknowledgement
// when --ack-previews was not given.
export function checkPreviewAcks(plan: Plan, ackPreviews: boolean): void {
  if (ackPreviews) return;
  const problems: Problem[] = [];
  for (const s of plan.steps) {
    if (s.kind !== 'release.create' || !s.preview?.requiresAck) continue;
    const p = s.preview;
    problems.push({
      message:
        `release of policy "${s.policy}" to group "${s.group}" suppresses ${p.suppressed.total} hook(s) on ` +
        `${p.suppressed.endpoints} endpoint(s)` +
        (p.hooksTurnedOff.length ? ` and turns hooks off on ${p.hooksTurnedOff.length}` : '') +
        ` (preview ${p.digest})`,
      code: 'preview_ack_required',
    });
  }
  if (problems.length)
    throw new CliError(
      'the plan releases versions whose impact preview requires an acknowledgement; nothing was applied: review the ' +
        'impact in the plan, then re-run apply with --ack-previews (it acknowledges exactly the previews shown)',
      problems,
    );
}

// Refuses a saved plan when the directory or the server changed since it was made, naming what changed.
export function checkSavedPlan(saved: Plan, fresh: Plan): void {
  if (saved.server !== fresh.server) {
    throw new CliError(`the plan was made for ${saved.server}, not ${fresh.server}`);
  }
  if (saved.desiredDigest !== fresh.desiredDigest) {
    throw new CliError(`the directory changed since the plan was made (${saved.createdAt}): run plan again`);
  }
  if (saved.prune !== fresh.prune)
    throw new CliError(`the plan was made ${saved.prune ? 'with' : 'without'} --prune: use the same`);
  const a = saved.steps.map(stepKey);
  const b = fresh.steps.map(stepKey);
  if (canonicalJson(a) === canonicalJson(b)) return;
  const problems: Problem[] = [];
  for (const s of saved.steps) {
    if (b.includes(stepKey(s))) continue;
    if (s.kind === 'version.create') {
      const now = fresh.steps.find((x) => x.kind === 'version.create' && x.policy === s.policy);
      problems.push({
        message:
          now && now.kind === 'version.create'
            ? `policy "${s.policy}": the plan was based on version ${s.baseVersion} (${s.baseDigest ?? 'none'}), the server now has version ${now.baseVersion} (${now.baseDigest ?? 'none'})`
            : `policy "${s.policy}": the server already has this content now`,
        code: 'stale_base',
      });
    } else problems.push({ message: `planned step no longer matches the server: ${describeStep(s).split('\n')[0]}` });
  }
  for (const s of fresh.steps) {
    if (!a.includes(stepKey(s)) && s.kind !== 'version.create') {
      problems.push({ message: `the server now needs a step the plan lacks: ${describeStep(s).split('\n')[0]}` });
    }
  }
  throw new CliError(
    `the server changed since the plan was made (${saved.createdAt}); nothing was applied: run plan again and review it`,
    problems,
  );
}

export interface ApplyOptions {
  message?: string;
  log: (line: string) => void;
  /** Acknowledge the release impact previews the plan shows (or apply computes for new versions). */
  ackPreviews?: boolean;
}

/** What an apply did. */
export interface ApplyResult {
  applied: Array<{ step: Step; result: Record<string, unknown> }>;
  releases: ReleaseView[];
}

// Performs the steps of a (checked) plan. A version whose base moved meanwhile is refused by the server
// (409 stale base / 428): that error stops the apply, naming the policy.
export async function executePlan(
  client: ApiClient,
  plan: Plan,
  desired: DesiredState,
  o: ApplyOptions,
): Promise<ApplyResult> {
  const groupIds = new Map<string, string>();
  const policyIds = new Map<string, string>();
  const newVersionIds = new Map<string, string>();
  const result: ApplyResult = { applied: [], releases: [] };
  const git = plan.steps.some((s) => s.kind === 'version.create') ? await gitInfo(desired.root) : null;

  const groupId = async (name: string): Promise<string> => {
    const known = groupIds.get(name);
    if (known) return known;
    const found = (await client.json('GET', '/v1/groups', { query: { namePrefix: name, limit: 200 } })).items.find(
      (g) => g.name === name,
    );
    if (!found) throw new CliError(`group "${name}" disappeared from the server during the apply`);
    groupIds.set(name, found.id);
    return found.id;
  };
  const policyId = async (name: string): Promise<string> => {
    const known = policyIds.get(name);
    if (known) return known;
    const found = (await client.json('GET', '/v1/policies', { query: { namePrefix: name, limit: 200 } })).items.find(
      (p) => p.name === name,
    );
    if (!found) throw new CliError(`policy "${name}" disappeared from the server during the apply`);
    policyIds.set(name, found.id);
    return found.id;
  };

  for (const step of plan.steps) {
    let out: Record<string, unknown>;
    try {
      out = await runStep(step);
    } catch (err) {
      const done = result.applied.length;
      const prefix = `${describeStep(step).split('\n')[0]}: failed after ${done} of ${plan.steps.length} step(s)`;
      if (err instanceof ApiError && (err.status === 409 || err.status === 428) && step.kind === 'version.create') {
        throw new CliError(
          `${prefix}: policy "${step.policy}" changed on the server since the plan (its version base moved); run plan again`,
          err.problems,
        );
      }
      if (err instanceof CliError) throw new CliError(`${prefix}: ${err.message}`, err.problems);
      throw err;
    }
    result.applied.push({ step, result: out });
    o.log(`done: ${describeStep(step).split('\n')[0]}`);
  }
  return result;

  async function runStep(step: Step): Promise<Record<string, unknown>> {
    switch (step.kind) {
      case 'group.create': {
        const g = await client.json('POST', '/v1/groups', {
          body: { name: step.group, description: step.description },
        });
        groupIds.set(g.name, g.id);
        return { groupId: g.id };
      }
      case 'group.update':
        await client.json('PATCH', '/v1/groups/{id}', {
          path: { id: step.groupId },
          body: { description: step.after.description },
        });
        return { groupId: step.groupId };
      case 'capture.update': {
        const id = step.groupId ?? (await groupId(step.group));
        await client.json('PUT', '/v1/groups/{id}/audit-settings', { path: { id }, body: step.after });
        return { groupId: id };
      }
      case 'policy.create': {
        const p = await client.json('POST', '/v1/policies', {
          body: { name: step.policy, description: step.description, groupId: await groupId(step.group) },
        });
        policyIds.set(p.name, p.id);
        return { policyId: p.id };
      }
      case 'policy.update':
        await client.json('PATCH', '/v1/policies/{id}', {
          path: { id: step.policyId },
          body: { description: step.after.description, groupId: await groupId(step.after.group) },
        });
        return { policyId: step.policyId };
      case 'version.create': {
        const d = desired.policies.find((p) => p.name === step.policy);
        if (!d || d.content.digest !== step.digest)
          throw new CliError(`the directory no longer matches the plan for policy "${step.policy}"`);
        const id = step.policyId ?? (await policyId(step.policy));
        const headers: Record<string, string> = step.baseDigest ? { 'if-match': `"${step.baseDigest}"` } : {};
        const res = await client.jsonWithStatus('POST', '/v1/policies/{id}/versions', {
          path: { id },
          headers,
          body: {
            toml: d.content.sourceText,
            files: d.content.files.map((f) => ({
              path: f.path,
              content: f.content.toString('base64'),
              encoding: 'base64' as const,
              mode: f.mode,
            })),
            message: versionMessage(o.message, git, step.folder),
            baseVersion: step.baseVersion,
          },
          timeoutMs: 300_000,
        });
        if (res.body.digest !== step.digest) {
          throw new CliError(
            `the server computed digest ${res.body.digest} for policy "${step.policy}", the CLI ${step.digest}: ` +
              'the CLI and the server disagree on the policy contract (update the CLI)',
          );
        }
        for (const w of res.body.warnings) o.log(`warning: ${step.folder}: ${w.message}`);
        newVersionIds.set(step.policy, res.body.id);
        return { policyId: id, version: res.body.number, versionId: res.body.id, created: res.status === 201 };
      }
      case 'release.create': {
        const pid = policyIds.get(step.policy) ?? (await policyId(step.policy));
        let versionId = newVersionIds.get(step.policy);
        if (!versionId) {
          if (step.version === null) throw new CliError(`no version of policy "${step.policy}" was created to release`);
          versionId = (
            await client.json('GET', '/v1/policies/{id}/versions/{n}', { path: { id: pid, n: step.version } })
          ).id;
        }
        const r = step.rollout;
        const gid = await groupId(step.group);
        if (r.strategy === 'shadow') {
          // A shadow release enforces nothing: no impact to acknowledge (promote asks for it).
          const release = await client.json('POST', '/v1/groups/{groupId}/releases', {
            path: { groupId: gid },
            body: {
              policyVersionId: versionId,
              strategy: 'shadow',
              rings: r.rings,
              ringIntervalSec: r.ringIntervalSec,
            },
          });
          o.log(
            `shadow release ${release.id} of policy "${step.policy}" in group "${step.group}" started: ` +
              `hookwarden releases shadow-report ${release.id}, then promote or abort it`,
          );
          result.releases.push(release);
          return { releaseId: release.id, revision: release.revision, status: release.status };
        }
        const body =
          r.strategy === 'immediate'
            ? { policyVersionId: versionId, strategy: 'immediate' as const }
            : {
                policyVersionId: versionId,
                strategy: 'staged' as const,
                rings: r.rings,
                ringIntervalSec: r.ringIntervalSec,
                maxApplyFailureRate: r.maxApplyFailureRate,
                maxHookFailureRate: r.maxHookFailureRate,
                minHookRuns: r.minHookRuns,
                minReportingEndpoints: r.minReportingEndpoints,
              };
        // The impact: the one the plan showed, or (a version or group the plan created) computed now.
        const shown = step.preview ?? null;
        const preview = shown ?? summarizePreview(await fetchPreview(client, gid, versionId));
        o.log(
          `impact of releasing policy "${step.policy}" to group "${step.group}" (release preview${shown ? ' of the plan' : ''}):`,
        );
        for (const l of previewLines(preview, '  ')) o.log(l);
        if (!shown) {
          if (preview.requiresAck && !o.ackPreviews)
            throw new CliError(
              `the release impact preview requires an acknowledgement (preview ${preview.digest}); the release was ` +
                'not started: review the impact above, then re-run apply with --ack-previews',
            );
        }
        const previewAck = preview.requiresAck && o.ackPreviews ? preview.digest : undefined;
        let release: ReleaseView;
        try {
          release = await client.json('POST', '/v1/groups/{groupId}/releases', {
            path: { groupId: gid },
            body: previewAck ? { ...body, previewAck } : body,
          });
        } catch (err) {
          if (!isPreviewAckRequired(err)) throw err;
          throw new CliError(
            `the release impact changed since it was shown (preview ${preview.digest}${preview.requiresAck ? '' : ', which needed no acknowledgement'}); ` +
              'the release was not started: run plan again and review it',
            err.problems,
          );
        }
        result.releases.push(release);
        return {
          releaseId: release.id,
          revision: release.revision,
          status: release.status,
          previewDigest: preview.digest,
          previewAcknowledged: previewAck !== undefined,
        };
      }
      case 'policy.delete':
        await client.json('DELETE', '/v1/policies/{id}', { path: { id: step.policyId } });
        return { policyId: step.policyId };
      case 'group.delete':
        await client.json('DELETE', '/v1/groups/{id}', { path: { id: step.groupId } });
        return { groupId: step.groupId };
    }
  }
}
