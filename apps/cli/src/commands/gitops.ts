// `hookwarden plan`, `apply` and `export`: the GitOps workflow over a directory layout.
import path from 'node:path';
import type { Command } from 'commander';
import { readBounded, writePrivate } from '../config/files';
import { runtimeOf } from '../cli/context';
import { CliError, formatProblem } from '../cli/errors';
import { examples } from '../cli/help';
import { parseDuration } from '../cli/parse';
import { checkPreviewAcks, checkSavedPlan, executePlan, withSavedPreviews } from '../gitops/apply';
import { exportState } from '../gitops/export';
import { readLayout } from '../gitops/layout';
import { computePlan, type Plan, PLAN_FORMAT } from '../gitops/plan';
import { renderPlan } from '../gitops/render';
import { fetchServerState } from '../gitops/server-state';
import { watchExitCode, watchRollout } from '../rollout/watch';
import type { ApiClient } from '../client/api-client';

/** Exit code of `plan` when changes are pending. */
export const EXIT_CHANGES = 2;
const MAX_PLAN_BYTES = 256 * 1024 * 1024;

// Reads the layout, validates it offline and plans it against the server.
async function planFor(
  clientOf: () => Promise<ApiClient>,
  dir: string,
  prune: boolean,
): Promise<{ plan: Plan; desired: Awaited<ReturnType<typeof readLayout>> }> {
  const desired = await readLayout(dir);
  const client = await clientOf();
  const names = new Set(desired.groups.map((g) => g.name));
  const state = await fetchServerState(client, prune ? 'all' : names);
  return { plan: await computePlan(client, desired, state, { prune }), desired };
}

// Loads a saved plan file.
async function loadPlan(file: string): Promise<Plan> {
  const raw = await readBounded(file, MAX_PLAN_BYTES);
  if (raw === null) throw new CliError(`${file}: no such plan file`);
  let plan: Plan;
  try {
    plan = JSON.parse(raw.toString('utf8')) as Plan;
  } catch {
    throw new CliError(`${file} is not a plan (not JSON)`);
  }
  if (plan?.format !== PLAN_FORMAT || !Array.isArray(plan.steps))
    throw new CliError(`${file} is not a ${PLAN_FORMAT} plan`);
  return plan;
}

// Registers plan, apply and export.
export function registerGitopsCommands(program: Command): void {
  const plan = program
    .command('plan')
    .description(
      'Validate a GitOps directory offline (hook-core), compare it with the server and print what apply would change. ' +
        'Exit 0: nothing to do; 2: changes pending; 1: error',
    )
    .requiredOption('-f, --dir <dir>', 'the GitOps directory (groups.toml, policies/…)')
    .option('--out <file>', 'save the plan (JSON) for `apply --plan`')
    .option('--prune', 'also plan to delete what is on the server but not in the directory')
    .action(async (opts: { dir: string; out?: string; prune?: boolean }, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const { plan: p } = await planFor(() => rt.client(), opts.dir, opts.prune ?? false);
      if (opts.out) await writePrivate(path.resolve(opts.out), JSON.stringify(p, null, 2) + '\n');
      if (rt.format === 'json') rt.json(p);
      else rt.out(renderPlan(p));
      if (opts.out) rt.warn(`plan saved to ${opts.out}`);
      process.exitCode = p.steps.length > 0 ? EXIT_CHANGES : 0;
    });
  examples(plan, [
    'hookwarden plan -f ./gitops',
    'hookwarden plan -f ./gitops --out plan.json   # then: hookwarden apply -f ./gitops --plan plan.json',
    'hookwarden plan -f ./gitops -o json | jq .steps',
  ]);

  const apply = program
    .command('apply')
    .description(
      'Apply a GitOps directory: groups, capture settings, policies, versions, releases (in that order). ' +
        'Idempotent; refuses when the server changed since --plan',
    )
    .requiredOption('-f, --dir <dir>', 'the GitOps directory')
    .option('--plan <file>', 'a plan saved by `plan --out`: apply exactly it, or refuse if anything changed')
    .option('--prune', 'delete what is on the server but not in the directory (when the server allows it)')
    .option('--watch', 'follow the staged rollouts this apply starts until they complete, pause or abort')
    .option('--watch-timeout <duration>', 'give up watching after this long (e.g. 30m)')
    .option('-m, --message <text>', 'version message (default: the git commit subject)')
    .option(
      '--ack-previews',
      'acknowledge the release impact previews that require it (the ones the plan shows; for new versions, the ones apply computes and prints)',
    )
    .action(
      async (
        opts: {
          dir: string;
          plan?: string;
          prune?: boolean;
          watch?: boolean;
          watchTimeout?: string;
          message?: string;
          ackPreviews?: boolean;
        },
        cmd: Command,
      ) => {
        const rt = runtimeOf(cmd);
        const saved = opts.plan ? await loadPlan(opts.plan) : undefined;
        const prune = opts.prune ?? saved?.prune ?? false;
        const { plan: planned, desired } = await planFor(() => rt.client(), opts.dir, prune);
        const client = await rt.client();
        if (saved) checkSavedPlan(saved, planned);
        const fresh = saved ? withSavedPreviews(saved, planned) : planned;
        checkPreviewAcks(fresh, opts.ackPreviews ?? false);
        const log = (l: string) => (rt.format === 'json' ? process.stderr.write(l + '\n') : rt.out(l + '\n'));
        for (const w of fresh.warnings) log(`warning: ${formatProblem(w)}`);
        let result: Awaited<ReturnType<typeof executePlan>> = { applied: [], releases: [] };
        if (fresh.steps.length === 0) {
          if (rt.format !== 'json') rt.out(`No changes: ${fresh.server} already matches ${desired.root}.\n`);
        } else {
          result = await executePlan(client, fresh, desired, {
            message: opts.message,
            log,
            ackPreviews: opts.ackPreviews ?? false,
          });
          if (rt.format !== 'json') rt.out(`Applied ${result.applied.length} change(s).\n`);
        }
        const reported = fresh.serverOnly.filter((s) => !(prune && s.blocked === null));
        if (rt.format === 'json') rt.json({ ...result, serverOnly: reported, rolling: fresh.rolling });
        else {
          for (const s of reported) {
            const why = s.blocked ? ` (cannot be removed: ${s.blocked})` : ' (kept; --prune removes it)';
            rt.out(`on the server only: ${s.kind} "${s.name}"${why}\n`);
          }
        }
        if (opts.watch) {
          // The rollouts this apply started, and those of the directory's versions still rolling (a re-run job).
          const ids = [...result.releases.filter((x) => x.status === 'rolling').map((x) => x.id), ...fresh.rolling];
          let code = 0;
          for (const id of ids) {
            const { end } = await watchRollout(client, id, {
              write: (t) => (rt.format === 'json' ? process.stderr.write(t) : rt.out(t)),
              tty: rt.format !== 'json' && Boolean(process.stdout.isTTY),
              timeoutMs: opts.watchTimeout ? parseDuration(opts.watchTimeout, '--watch-timeout') * 1000 : undefined,
            });
            log(`release ${id}: ${end}`);
            code = Math.max(code, watchExitCode(end));
          }
          process.exitCode = code;
        }
      },
    );
  examples(apply, [
    'hookwarden apply -f ./gitops',
    'hookwarden apply -f ./gitops --plan plan.json --watch',
    'hookwarden apply -f ./gitops --prune',
    'hookwarden apply -f ./gitops --plan plan.json --ack-previews   # after reviewing the impact in the plan',
  ]);

  const validate = program
    .command('validate')
    .description('Validate a GitOps directory offline only (hook-core; no server needed). Exit 0 valid, 1 problems')
    .requiredOption('-f, --dir <dir>', 'the GitOps directory')
    .action(async (opts: { dir: string }, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const desired = await readLayout(opts.dir);
      if (rt.format === 'json') {
        return rt.json({
          ok: true,
          groups: desired.groups.map((g) => g.name),
          policies: desired.policies.map((p) => ({ name: p.name, folder: p.folder, digest: p.content.digest })),
          warnings: desired.warnings,
        });
      }
      for (const w of desired.warnings) rt.out(`warning: ${formatProblem(w)}\n`);
      rt.out(`${opts.dir}: valid (${desired.groups.length} group(s), ${desired.policies.length} policy(ies)).\n`);
    });
  examples(validate, ['hookwarden validate -f ./gitops']);

  const exp = program
    .command('export')
    .description("Write the server's groups, capture settings and policies (latest versions) in the GitOps layout")
    .requiredOption('-d, --dir <dir>', 'target directory (empty or absent)')
    .option('--force', "replace the directory's groups.toml and policies/ when it is not empty")
    .action(async (opts: { dir: string; force?: boolean }, cmd: Command) => {
      const rt = runtimeOf(cmd);
      const summary = await exportState(await rt.client(), opts.dir, opts.force ?? false);
      for (const s of summary.skipped) rt.warn(`skipped ${s}`);
      if (rt.format === 'json') rt.json(summary);
      else
        rt.out(
          `Exported ${summary.groups} group(s), ${summary.policies} policy(ies) and ${summary.files} file(s) to ${summary.dir}.\n`,
        );
    });
  examples(exp, ['hookwarden export -d ./gitops', 'hookwarden export -d ./gitops --force && git -C ./gitops diff']);
}
