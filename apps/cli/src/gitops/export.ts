// Writes the server's current state in the GitOps layout, so that `plan` on the result reports no changes.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { unsafeFilePath } from '@hookwarden/hook-core';
import { stringify as stringifyToml } from 'smol-toml';
import type { ApiClient } from '../client/api-client';
import { CliError } from '../cli/errors';
import { FILES_DIR, GROUPS_FILE, POLICIES_DIR, POLICY_FILE, REQUIREMENTS_FILE } from './layout';
import { modeFromStat } from './managed-files';
import { currentRelease, fetchServerState, liveShadowRelease, versionWithContent } from './server-state';

export interface ExportSummary {
  dir: string;
  groups: number;
  policies: number;
  files: number;
  skipped: string[];
}

// A folder name for a policy: its name when that is a safe single path segment, else a slug (made unique).
function folderName(name: string, taken: Set<string>): string {
  let base = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)
    ? name
    : name
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[-.]+|-+$/g, '')
        .slice(0, 80);
  if (!base) base = 'policy';
  let candidate = base;
  for (let i = 2; taken.has(candidate.toLowerCase()); i++) candidate = `${base}-${i}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

// Writes `content` at `rel` inside `root`, refusing any path that could leave it.
async function writeInside(root: string, rel: string, content: Buffer | string, mode = 0o644): Promise<void> {
  const bad = unsafeFilePath(rel);
  if (bad) throw new CliError(`refusing to write ${JSON.stringify(rel)}: ${bad}`);
  const full = path.resolve(root, rel);
  if (!full.startsWith(path.resolve(root) + path.sep)) throw new CliError(`refusing to write outside ${root}: ${rel}`);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, content, { mode, flag: 'wx' });
  await fs.chmod(full, mode);
}

const header = (what: string) => `# ${what} — exported by \`hookwarden export\` on ${new Date().toISOString()}\n`;

// Exports groups, capture settings and every policy's latest version (with its managed files) into `dir`.
// `dir` must be empty or absent unless `force`, which replaces its groups.toml and policies/.
export async function exportState(client: ApiClient, dir: string, force: boolean): Promise<ExportSummary> {
  const target = path.resolve(dir);
  const existing = await fs.readdir(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw new CliError(`cannot read ${dir}: ${err.message}`);
  });
  if (existing && existing.length > 0 && !force) {
    throw new CliError(
      `${dir} is not empty: export into an empty directory, or pass --force to replace its ${GROUPS_FILE} and ${POLICIES_DIR}/`,
    );
  }
  const state = await fetchServerState(client, 'all');
  const parent = path.dirname(target);
  await fs.mkdir(parent, { recursive: true });
  const stage = path.join(parent, `.${path.basename(target)}.export-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(stage, { mode: 0o755 });
  const summary: ExportSummary = { dir: target, groups: 0, policies: 0, files: 0, skipped: [] };
  try {
    const groupName = new Map(state.groups.map((g) => [g.id, g.name]));
    const groups: Record<string, unknown> = {};
    for (const g of [...state.groups].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const c = state.capture.get(g.id);
      groups[g.name] = {
        description: g.description,
        ...(c
          ? {
              capture: {
                mode: c.capture,
                max_excerpt_bytes: c.maxExcerptBytes,
                redact_patterns: c.redactPatterns,
                use_default_redact: c.useDefaultRedact,
              },
            }
          : {}),
      };
      summary.groups++;
    }
    await writeInside(
      stage,
      GROUPS_FILE,
      header('Endpoint groups and their capture settings') + stringifyToml({ groups }) + '\n',
    );

    const taken = new Set<string>();
    for (const p of [...state.policies].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (p.latestVersion === 0) {
        summary.skipped.push(`policy "${p.name}" has no version yet (the layout needs a requirements.toml)`);
        continue;
      }
      const folder = folderName(p.name, taken);
      const rel = `${POLICIES_DIR}/${folder}`;
      const v = await versionWithContent(client, p.id, p.latestVersion);
      const served = currentRelease(state.releases.get(p.groupId));
      const servesLatest = served && served.policyId === p.id && served.policyVersion === v.number;
      const shadow = liveShadowRelease(state.releases.get(p.groupId));
      const shadowsLatest = shadow && shadow.policyId === p.id && shadow.policyVersion === v.number;
      let rollout: Record<string, unknown>;
      let comment = '';
      if (!servesLatest && shadowsLatest) {
        rollout = { strategy: 'shadow', rings: shadow.rings, interval: shadow.ringIntervalSec };
        comment = `# Version ${v.number} runs as shadow release ${shadow.id} in group "${groupName.get(p.groupId)}" (promote or abort it with hookwarden releases).\n`;
      } else if (!servesLatest) {
        rollout = { strategy: 'none' };
        comment = served
          ? served.policyId === p.id
            ? `# Group "${groupName.get(p.groupId)}" is served version ${served.policyVersion}, not the latest (${v.number}): set a strategy to release it.\n`
            : `# Group "${groupName.get(p.groupId)}" is served another policy: this one is not released.\n`
          : `# Nothing is released to group "${groupName.get(p.groupId)}" yet: set a strategy to release this policy.\n`;
      } else if (served.strategy === 'immediate') rollout = { strategy: 'immediate' };
      else {
        rollout = {
          strategy: 'staged',
          rings: served.rings,
          interval: served.ringIntervalSec,
          max_apply_failure_rate: served.maxApplyFailureRate,
          ...(served.maxHookFailureRate !== null ? { max_hook_failure_rate: served.maxHookFailureRate } : {}),
          min_hook_runs: served.minHookRuns,
          min_reporting_endpoints: served.minReportingEndpoints,
        };
      }
      const fileModes: Record<string, string> = {};
      for (const f of v.files)
        if (f.mode !== modeFromStat(f.mode)) fileModes[f.path] = `0${f.mode.toString(8).padStart(3, '0')}`;
      const manifest: Record<string, unknown> = {
        name: p.name,
        description: p.description,
        group: groupName.get(p.groupId) ?? p.groupId,
        rollout,
        ...(Object.keys(fileModes).length ? { file_modes: fileModes } : {}),
      };
      await writeInside(
        stage,
        `${rel}/${POLICY_FILE}`,
        header(`Policy "${p.name}" (version ${v.number}, ${v.digest})`) + comment + stringifyToml(manifest) + '\n',
      );
      await writeInside(stage, `${rel}/${REQUIREMENTS_FILE}`, v.toml);
      for (const f of v.files) {
        if (f.content === undefined) throw new CliError(`the server sent no content for ${p.name}:${f.path}`);
        await writeInside(
          stage,
          `${rel}/${FILES_DIR}/${f.path}`,
          Buffer.from(f.content, 'base64'),
          modeFromStat(f.mode),
        );
        summary.files++;
      }
      summary.policies++;
    }

    // Swap the staged tree in: the target's groups.toml and policies/ are replaced as a whole.
    await fs.mkdir(target, { recursive: true });
    await fs.rm(path.join(target, POLICIES_DIR), { recursive: true, force: true });
    await fs.rm(path.join(target, GROUPS_FILE), { force: true });
    await fs.rename(path.join(stage, GROUPS_FILE), path.join(target, GROUPS_FILE));
    await fs.mkdir(path.join(stage, POLICIES_DIR), { recursive: true });
    await fs.rename(path.join(stage, POLICIES_DIR), path.join(target, POLICIES_DIR));
    return summary;
  } finally {
    await fs.rm(stage, { recursive: true, force: true });
  }
}
