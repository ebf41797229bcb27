// Human-readable rendering of a plan (what would change, with diffs and rollout plans).
import { formatProblem } from '../cli/errors';
import { previewLines } from '../client/preview';
import type { AuditSettings } from '../client/types';
import type { Rollout } from './layout';
import type { Plan, Step } from './plan';

const pct = (r: number) => `${Math.round(r * 10_000) / 100}%`;

// One line describing a rollout.
export function describeRollout(r: Exclude<Rollout, { strategy: 'none' }>): string {
  if (r.strategy === 'immediate') return 'immediate (every endpoint at once)';
  if (r.strategy === 'shadow')
    return (
      `shadow: beside the enforced policy, deciding nothing, rings ${r.rings.map((x) => `${x}%`).join(' → ')}, ` +
      `${formatInterval(r.ringIntervalSec)} between rings (then hookwarden releases shadow-report, promote or abort)`
    );
  const parts = [
    `staged: rings ${r.rings.map((x) => `${x}%`).join(' → ')}, ${formatInterval(r.ringIntervalSec)} between rings`,
  ];
  if (r.maxApplyFailureRate !== undefined) parts.push(`pause above ${pct(r.maxApplyFailureRate)} apply failures`);
  if (r.maxHookFailureRate !== undefined) {
    parts.push(
      `pause above ${pct(r.maxHookFailureRate)} hook failures (mean over at least ${r.minReportingEndpoints ?? 3} ` +
        `endpoints with ${r.minHookRuns ?? 20}+ runs each)`,
    );
  }
  return parts.join('; ');
}

// Seconds as a short duration (90 → 1m30s).
export function formatInterval(sec: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = sec;
  let out = '';
  for (const [u, n] of units) {
    if (rest >= n) {
      out += `${Math.floor(rest / n)}${u}`;
      rest %= n;
    }
  }
  return out || '0s';
}

const settingsText = (s: AuditSettings | null) =>
  s
    ? `capture=${s.capture} max_excerpt_bytes=${s.maxExcerptBytes} redact_patterns=${JSON.stringify(s.redactPatterns)} use_default_redact=${s.useDefaultRedact}`
    : '(new group: server defaults)';

// The text of one step (first line + indented details).
export function describeStep(s: Step): string {
  switch (s.kind) {
    case 'group.create':
      return `+ create group "${s.group}"${s.description ? ` (${JSON.stringify(s.description)})` : ''}`;
    case 'group.update':
      return `~ update group "${s.group}": description ${JSON.stringify(s.before.description)} → ${JSON.stringify(s.after.description)}`;
    case 'capture.update':
      return `~ capture settings of group "${s.group}":\n    - ${settingsText(s.before)}\n    + ${settingsText(s.after)}`;
    case 'policy.create':
      return `+ create policy "${s.policy}" in group "${s.group}"`;
    case 'policy.update': {
      const parts: string[] = [];
      if (s.before.group !== s.after.group) parts.push(`group "${s.before.group}" → "${s.after.group}"`);
      if (s.before.description !== s.after.description) {
        parts.push(`description ${JSON.stringify(s.before.description)} → ${JSON.stringify(s.after.description)}`);
      }
      return `~ update policy "${s.policy}": ${parts.join(', ')}`;
    }
    case 'version.create': {
      const head =
        `+ create version ${s.baseVersion + 1} of policy "${s.policy}" from ${s.folder}` +
        (s.baseVersion > 0 ? ` (based on version ${s.baseVersion}, ${s.baseDigest})` : ' (first version)') +
        `\n    ${s.changes.map((c) => `${c.status} ${c.path}`).join(', ') || 'content identity changes'}`;
      const diff = s.diff
        .split('\n')
        .map((l) => (l ? `    ${l}` : l))
        .join('\n');
      return `${head}\n${diff.trimEnd()}`;
    }
    case 'release.create': {
      const what = s.version === null ? 'the new version' : `version ${s.version}`;
      const cur = s.current
        ? `\n    now serving: policy "${s.current.policy ?? '?'}" version ${s.current.policyVersion} (release ${s.current.releaseId}, ${s.current.status})`
        : '\n    now serving: nothing';
      const impact = s.preview
        ? `\n    impact (release preview):\n${previewLines(s.preview, '      ').join('\n')}` +
          (s.preview.requiresAck ? '\n      apply refuses this release unless given --ack-previews' : '')
        : s.previewNote
          ? `\n    impact: ${s.previewNote}`
          : '';
      return `▶ release ${what} of policy "${s.policy}" to group "${s.group}": ${describeRollout(s.rollout)}${cur}${impact}`;
    }
    case 'policy.delete':
      return `- delete policy "${s.policy}" (not in the directory; --prune)`;
    case 'group.delete':
      return `- delete group "${s.group}" (not in the directory; --prune)`;
  }
}

// The whole plan as text.
export function renderPlan(plan: Plan): string {
  const out: string[] = [];
  for (const w of plan.warnings) out.push(`warning: ${formatProblem(w)}`);
  if (plan.steps.length === 0) out.push(`No changes: ${plan.server} matches ${plan.root}.`);
  else {
    out.push(`Plan for ${plan.server} from ${plan.root}:`, '');
    for (const s of plan.steps) out.push(describeStep(s), '');
  }
  const reported = plan.serverOnly.filter((s) => !(plan.prune && s.blocked === null));
  if (reported.length) {
    out.push(
      plan.prune
        ? 'On the server only, kept:'
        : 'On the server only (not in the directory; removed only with --prune):',
    );
    for (const s of reported)
      out.push(`  ${s.kind} "${s.name}" (${s.id})${s.blocked ? `: cannot be removed: ${s.blocked}` : ''}`);
    out.push('');
  }
  for (const n of plan.notes) out.push(`note: ${n}`);
  if (plan.steps.length) {
    const count = (k: string) => plan.steps.filter((s) => s.kind.endsWith(k)).length;
    out.push(
      `Plan: ${count('.create') - plan.steps.filter((s) => s.kind === 'release.create').length} to create, ` +
        `${count('.update')} to update, ${plan.steps.filter((s) => s.kind === 'release.create').length} release(s), ` +
        `${count('.delete')} to delete.`,
    );
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n';
}
