// The GitOps directory layout: groups.toml (groups, descriptions, capture settings) and policies/<folder>/ with
// policy.toml (name, group, rollout), requirements.toml (the admin's text) and files/ (the managed files).
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseTomlLocated, redactPatternError, unsafeFilePath } from '@hookwarden/hook-core';
import { CliError, type Problem } from '../cli/errors';
import { parseDuration } from '../cli/parse';
import type { AuditSettings } from '../client/types';
import { type LocalVersion, MAX_TOML_BYTES, prepareLocalVersion } from './content';
import { ContainedDir, ContainedError } from './contained';
import { readManagedFiles } from './managed-files';

export const GROUPS_FILE = 'groups.toml';
export const POLICIES_DIR = 'policies';
export const POLICY_FILE = 'policy.toml';
export const REQUIREMENTS_FILE = 'requirements.toml';
export const FILES_DIR = 'files';
const MAX_POLICIES = 1000;

const groupName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'letters, digits, space, . _ - only (starting with a letter or digit)');

const regexString = z
  .string()
  .min(1)
  .max(500)
  // The engine's own compiler (RE2 syntax): what validates here is what the API accepts and endpoints run.
  .refine((s) => redactPatternError(s) === null, 'not a valid regular expression (RE2 syntax)');

const captureSchema = z
  .object({
    mode: z.enum(['none', 'digests', 'excerpts']),
    max_excerpt_bytes: z.number().int().min(0).max(65_536).default(2048),
    redact_patterns: z.array(regexString).max(100).default([]),
    use_default_redact: z.boolean().default(true),
  })
  .strict();

const groupsFileSchema = z
  .object({
    groups: z
      .record(
        z.string(),
        z.object({ description: z.string().max(2000).default(''), capture: captureSchema.optional() }).strict(),
      )
      .default({}),
  })
  .strict();

const rate = z.number().min(0).max(1);
const rolloutSchema = z
  .object({
    strategy: z.enum(['immediate', 'staged', 'shadow', 'none']).default('immediate'),
    rings: z.array(z.number().int().min(1).max(100)).min(1).max(20).optional(),
    interval: z
      .union([
        z
          .number()
          .int()
          .min(1)
          .max(30 * 86_400),
        z.string().min(1).max(40),
      ])
      .optional(),
    max_apply_failure_rate: rate.optional(),
    max_hook_failure_rate: rate.optional(),
    min_hook_runs: z.number().int().min(1).max(1_000_000).optional(),
    min_reporting_endpoints: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.strategy !== 'staged') {
      // A shadow release has rings and an interval, never gates (they are given when it is promoted).
      const ringed = v.strategy === 'shadow';
      for (const k of [
        ...(ringed ? [] : (['rings', 'interval'] as const)),
        'max_apply_failure_rate',
        'max_hook_failure_rate',
        'min_hook_runs',
        'min_reporting_endpoints',
      ] as const) {
        if (v[k] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message:
              k === 'rings' || k === 'interval'
                ? `only for strategy = "staged" or "shadow"`
                : `only for strategy = "staged"`,
          });
      }
      if (!ringed) return;
    }
    const rings = v.rings;
    if (rings) {
      for (let i = 1; i < rings.length; i++) {
        if (rings[i]! <= rings[i - 1]!)
          ctx.addIssue({ code: 'custom', path: ['rings', i], message: 'rings must be strictly increasing' });
      }
      if (rings[rings.length - 1] !== 100) {
        ctx.addIssue({ code: 'custom', path: ['rings', rings.length - 1], message: 'the last ring must be 100' });
      }
    }
  });

const policyFileSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
      .optional(),
    description: z.string().max(2000).default(''),
    group: groupName,
    rollout: rolloutSchema.default({ strategy: 'immediate' }),
    file_modes: z
      .record(z.string().min(1).max(1024), z.string().regex(/^0?[0-7]{3}$/, 'an octal mode like "0755"'))
      .default({}),
  })
  .strict();

/** How a policy's new versions reach its group (shadow: beside what the group enforces, until promoted or aborted). */
export type Rollout =
  | { strategy: 'none' }
  | { strategy: 'immediate' }
  | { strategy: 'shadow'; rings: number[]; ringIntervalSec: number }
  | {
      strategy: 'staged';
      rings: number[];
      ringIntervalSec: number;
      maxApplyFailureRate?: number;
      maxHookFailureRate?: number;
      minHookRuns?: number;
      minReportingEndpoints?: number;
    };

export interface DesiredGroup {
  name: string;
  description: string;
  /** Capture settings; undefined when groups.toml leaves them unmanaged. */
  capture?: AuditSettings;
}

export interface DesiredPolicy {
  name: string;
  description: string;
  group: string;
  /** The folder, relative to the layout root (policies/<folder>). */
  folder: string;
  rollout: Rollout;
  content: LocalVersion;
}

export interface DesiredState {
  root: string;
  groups: DesiredGroup[];
  policies: DesiredPolicy[];
  warnings: Problem[];
}

export const DEFAULT_RINGS = [1, 5, 25, 100];
export const DEFAULT_RING_INTERVAL_SEC = 3600;

/** Where a key path of a TOML file is defined (line, column), when known. */
type Locate = (path: ReadonlyArray<string | number>) => { line: number; column: number } | undefined;

/** A parsed TOML file of the layout and a locator of its keys. */
interface TomlDoc {
  value: Record<string, unknown>;
  locate: Locate;
}

// Reads one file of the layout through the contained reader: null when absent; a refusal (link, special file,
// outside DIR, too large) becomes a problem located at the file.
async function readContained(dir: ContainedDir, rel: string, problems: Problem[]): Promise<Buffer | null | undefined> {
  try {
    return (await dir.readFile(rel, MAX_TOML_BYTES))?.content ?? null;
  } catch (err) {
    if (err instanceof ContainedError) problems.push(err.problem);
    else problems.push({ file: rel, message: (err as Error).message.replace(`${rel}: `, '') });
    return undefined;
  }
}

// Parses one TOML file of the layout into a located problem list or a document; undefined when absent or refused.
async function readToml(dir: ContainedDir, rel: string, problems: Problem[]): Promise<TomlDoc | undefined> {
  const raw = await readContained(dir, rel, problems);
  if (!raw) return undefined;
  const parsed = parseTomlLocated(raw.toString('utf8'));
  if (!parsed.ok) {
    problems.push({
      file: rel,
      line: parsed.line,
      column: parsed.column,
      message: parsed.message,
      code: 'toml_syntax',
    });
    return undefined;
  }
  return { value: parsed.value, locate: (p) => parsed.locator.locate(p) };
}

// Lists a folder of the layout through the contained reader (absent: empty); a refusal becomes a located problem.
async function listContained(dir: ContainedDir, rel: string, problems: Problem[]): Promise<Dirent[]> {
  try {
    return (await dir.readDir(rel)) ?? [];
  } catch (err) {
    if (!(err instanceof ContainedError)) throw err;
    problems.push(err.problem);
    return [];
  }
}

// A TOML key path as text (`rollout.rings[1]`).
function keyText(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

// Zod issues as problems naming the file, the TOML key and the line and column that define it.
function zodProblems(err: z.ZodError, rel: string, locate: Locate): Problem[] {
  return err.issues.map((i) => {
    const keyPath = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    // An unknown key is located at its own line, not at its table's.
    const first = i.code === 'unrecognized_keys' ? i.keys[0] : undefined;
    const at = (first !== undefined && locate([...keyPath, first])) || locate(keyPath);
    return {
      file: rel,
      line: at?.line,
      column: at?.column,
      path: i.path.length ? keyText(i.path) : undefined,
      message: i.message,
      code: 'invalid_manifest',
    };
  });
}

// Reads and validates the whole layout offline (hook-core for every policy); throws a CliError listing every
// problem with its file and location.
export async function readLayout(rootDir: string): Promise<DesiredState> {
  const root = path.resolve(rootDir);
  const dir = await ContainedDir.open(root);
  if (!dir) throw new CliError(`${rootDir} is not a directory`);
  const problems: Problem[] = [];
  const warnings: Problem[] = [];

  const groupsFile = await readToml(dir, GROUPS_FILE, problems);
  const groupsDoc = groupsFile?.value;
  if (groupsDoc === undefined && problems.length === 0) {
    problems.push({
      file: GROUPS_FILE,
      message: 'missing: the layout needs a groups.toml (it may declare only [groups.default])',
    });
  }
  const groups: DesiredGroup[] = [];
  if (groupsDoc !== undefined) {
    const parsed = groupsFileSchema.safeParse(groupsDoc);
    const declaredNames = Object.keys((groupsDoc as { groups?: object }).groups ?? {});
    for (const name of declaredNames) {
      const checked = groupName.safeParse(name);
      if (!checked.success) {
        const message = `group name: ${checked.error.issues[0]?.message ?? 'invalid'}`;
        const at = groupsFile!.locate(['groups', name]);
        problems.push({
          file: GROUPS_FILE,
          line: at?.line,
          column: at?.column,
          path: `groups.${name}`,
          message,
          code: 'invalid_manifest',
        });
      }
    }
    if (!parsed.success) problems.push(...zodProblems(parsed.error, GROUPS_FILE, groupsFile!.locate));
    else {
      for (const [name, g] of Object.entries(parsed.data.groups)) {
        if (!groupName.safeParse(name).success) continue;
        groups.push({
          name,
          description: g.description,
          capture: g.capture && {
            capture: g.capture.mode,
            maxExcerptBytes: g.capture.max_excerpt_bytes,
            redactPatterns: g.capture.redact_patterns,
            useDefaultRedact: g.capture.use_default_redact,
          },
        });
      }
    }
  }

  const policies: DesiredPolicy[] = [];
  const entries = await listContained(dir, POLICIES_DIR, problems);
  const locators = new Map<string, Locate>();
  for (const e of entries) {
    if (e.isSymbolicLink()) {
      problems.push({
        file: `${POLICIES_DIR}/${e.name}`,
        message: 'is a symbolic link: policy folders must be real directories',
        code: 'symlink',
      });
    }
  }
  const folders = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  if (folders.length > MAX_POLICIES)
    throw new CliError(`${POLICIES_DIR}/ has ${folders.length} folders; the limit is ${MAX_POLICIES}`);
  for (const folder of folders) {
    const rel = `${POLICIES_DIR}/${folder}`;
    const manifestRel = `${rel}/${POLICY_FILE}`;
    const before = problems.length;
    const doc = await readToml(dir, manifestRel, problems);
    if (doc === undefined) {
      if (problems.length === before)
        problems.push({ file: manifestRel, message: 'missing: every policy folder needs a policy.toml' });
      continue;
    }
    const parsed = policyFileSchema.safeParse(doc.value);
    if (!parsed.success) {
      problems.push(...zodProblems(parsed.error, manifestRel, doc.locate));
      continue;
    }
    const m = parsed.data;
    let rollout: Rollout = {
      strategy: m.rollout.strategy === 'staged' || m.rollout.strategy === 'shadow' ? 'immediate' : m.rollout.strategy,
    };
    if (m.rollout.strategy === 'staged' || m.rollout.strategy === 'shadow') {
      let interval = DEFAULT_RING_INTERVAL_SEC;
      try {
        if (typeof m.rollout.interval === 'number') interval = m.rollout.interval;
        else if (m.rollout.interval !== undefined) interval = parseDuration(m.rollout.interval, 'rollout.interval');
        if (interval < 1 || interval > 30 * 86_400) throw new CliError('rollout.interval: must be 1 s .. 30 days');
      } catch (err) {
        const at = doc.locate(['rollout', 'interval']);
        problems.push({
          file: manifestRel,
          line: at?.line,
          column: at?.column,
          path: 'rollout.interval',
          message: (err as Error).message,
        });
      }
      rollout =
        m.rollout.strategy === 'shadow'
          ? { strategy: 'shadow', rings: m.rollout.rings ?? DEFAULT_RINGS, ringIntervalSec: interval }
          : {
              strategy: 'staged',
              rings: m.rollout.rings ?? DEFAULT_RINGS,
              ringIntervalSec: interval,
              maxApplyFailureRate: m.rollout.max_apply_failure_rate,
              maxHookFailureRate: m.rollout.max_hook_failure_rate,
              minHookRuns: m.rollout.min_hook_runs,
              minReportingEndpoints: m.rollout.min_reporting_endpoints,
            };
    }
    // A file_modes key is a path under files/: one that is unsafe (`..`, absolute) is this file's problem.
    const unsafeModes = Object.keys(m.file_modes).flatMap((p) => {
      const why = unsafeFilePath(p);
      if (why === undefined) return [];
      const at = doc.locate(['file_modes', p]);
      return [
        {
          file: manifestRel,
          line: at?.line,
          column: at?.column,
          path: `file_modes.${JSON.stringify(p)}`,
          message: why,
          code: 'unsafe_path',
        },
      ];
    });
    if (unsafeModes.length) {
      problems.push(...unsafeModes);
      continue;
    }
    const overrides = Object.fromEntries(Object.entries(m.file_modes).map(([p, v]) => [p, parseInt(v, 8)]));
    const tomlRel = `${rel}/${REQUIREMENTS_FILE}`;
    const raw = await readContained(dir, tomlRel, problems);
    if (raw === undefined) continue;
    if (raw === null) {
      problems.push({ file: tomlRel, message: 'missing: every policy folder needs a requirements.toml' });
      continue;
    }
    const files = await readManagedFiles({ dir, rel: `${rel}/${FILES_DIR}` }, overrides, (r) =>
      r ? `${rel}/${FILES_DIR}/${r}` : `${rel}/${FILES_DIR}`,
    );
    problems.push(...files.problems);
    const text = raw.toString('utf8');
    if (Buffer.compare(Buffer.from(text, 'utf8'), raw) !== 0)
      problems.push({ file: tomlRel, message: 'is not valid UTF-8' });
    const prepared = prepareLocalVersion(text, files.files, tomlRel, (p) => `${rel}/${FILES_DIR}/${p}`);
    if (!prepared.ok) {
      problems.push(...prepared.problems);
      continue;
    }
    warnings.push(...prepared.version.warnings);
    for (const { name: e } of await listContained(dir, rel, problems)) {
      if (![POLICY_FILE, REQUIREMENTS_FILE, FILES_DIR].includes(e) && !e.startsWith('.') && !/^README/i.test(e)) {
        warnings.push({
          file: `${rel}/${e}`,
          severity: 'warning',
          message: `ignored (managed files belong under ${FILES_DIR}/)`,
        });
      }
    }
    locators.set(rel, doc.locate);
    policies.push({
      name: m.name ?? folder,
      description: m.description,
      group: m.group,
      folder: rel,
      rollout,
      content: prepared.version,
    });
  }

  // Cross-file rules: unique policy names, declared groups, one releasing policy per group.
  const byName = new Map<string, string>();
  const releasing = new Map<string, string>();
  const declared = new Set(groups.map((g) => g.name));
  for (const p of policies) {
    const manifestRel = `${p.folder}/${POLICY_FILE}`;
    const at = (key: string) => locators.get(p.folder)?.([...key.split('.')]) ?? {};
    const other = byName.get(p.name);
    if (other)
      problems.push({
        file: manifestRel,
        ...at('name'),
        path: 'name',
        message: `policy name ${JSON.stringify(p.name)} is also used by ${other}`,
      });
    byName.set(p.name, p.folder);
    if (!declared.has(p.group)) {
      problems.push({
        file: manifestRel,
        ...at('group'),
        path: 'group',
        message: `group ${JSON.stringify(p.group)} is not declared in ${GROUPS_FILE}`,
      });
    }
    if (p.rollout.strategy !== 'none') {
      const r = releasing.get(p.group);
      if (r) {
        problems.push({
          file: manifestRel,
          ...at('rollout.strategy'),
          path: 'rollout.strategy',
          message: `group ${JSON.stringify(p.group)} is already released from ${r}: a group serves one policy; set strategy = "none" on all but one`,
        });
      }
      releasing.set(p.group, p.folder);
    }
  }
  if (problems.length > 0) {
    throw new CliError(`${rootDir}: ${problems.length} problem(s) found by offline validation`, problems);
  }
  return { root, groups, policies, warnings };
}
