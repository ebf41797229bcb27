// Policy versions: validated authoring (TOML or JSON + files), idempotent resubmission, optimistic concurrency,
// reads, the exact requirements.toml endpoints receive, and diffs.
import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { decodeCursor, type Page, toPage } from '../common/pagination';
import { z } from 'zod';
import { diffContent } from '@hookwarden/hook-core';
import { prepareVersion } from './version-content';
import type {
  CreateVersionInput,
  DiagnosticView,
  DiffView,
  ValidationResult,
  VersionSummary,
  VersionView,
} from './versions.dto';
import {
  type BaseRef,
  VersionsRepository,
  type VersionRow,
  type VersionSummaryRow,
  type VersionWithContent,
} from './versions.repository';

const numberKey = z.object({ n: z.number().int().min(1).max(2_000_000_000) }).strict();

// Summary view (lists).
function toSummary(v: VersionSummaryRow | VersionRow): VersionSummary {
  return {
    id: v.id,
    policyId: v.policyId,
    number: v.number,
    digest: v.digest,
    message: v.message,
    authorId: v.authorId,
    authorName: v.authorName,
    createdAt: v.createdAt.toISOString(),
    warnings: v.warnings as DiagnosticView[],
    fileCount: '_count' in v ? v._count.files : v.files.length,
  };
}

// Orders files by path in UTF-16 code-unit order (independent of the database collation).
function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

// Full view (one version), optionally with file contents.
function toView(v: VersionRow | VersionWithContent): VersionView {
  return {
    ...toSummary(v),
    toml: v.canonicalToml,
    policy: v.structured as Record<string, unknown>,
    files: [...v.files].sort(byPath).map((f) => ({
      path: f.path,
      sha256: f.sha256,
      size: f.size,
      mode: f.mode,
      ...('content' in f ? { content: Buffer.from(f.content).toString('base64'), encoding: 'base64' as const } : {}),
    })),
  };
}

// Parses `If-Match: "<digest>"` (a weak or unquoted tag is accepted too).
function parseIfMatch(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^\s*(?:W\/)?"?(sha256:[0-9a-f]{64})"?\s*$/.exec(header);
  if (!m) {
    throw new ApiError('validation_failed', 'If-Match must be the quoted digest of the version this edit is based on', [
      { path: '$.headers["if-match"]', message: 'expected "sha256:<64 hex>"', code: 'invalid_if_match' },
    ]);
  }
  return m[1];
}

@Injectable()
export class VersionsService {
  constructor(private readonly versions: VersionsRepository) {}

  // Validates and stores a new version; `created: false` when it equals the latest version.
  async create(
    policyId: string,
    input: CreateVersionInput,
    ifMatch: string | undefined,
    ctx: AuditContext,
  ): Promise<{ created: boolean; version: VersionView }> {
    const base: BaseRef = {};
    const digest = parseIfMatch(ifMatch);
    if (digest) base.digest = digest;
    if (input.baseVersion !== undefined) base.number = input.baseVersion;
    const prepared = prepareVersion(input);
    if (!prepared.ok) {
      const first = prepared.errors[0]!;
      const where =
        first.line !== undefined ? `line ${first.line}, column ${first.column ?? 1}` : (first.field ?? first.path);
      const more = prepared.errors.length > 1 ? ` (and ${prepared.errors.length - 1} more)` : '';
      throw new ApiError('validation_failed', `Invalid policy: ${where}: ${first.message}${more}`, prepared.errors);
    }
    const result = await this.versions.create(
      policyId,
      prepared.version,
      base,
      { id: ctx.actorId, name: ctx.actorName },
      input.message,
      ctx,
    );
    switch (result.kind) {
      case 'created':
        return { created: true, version: toView(result.version) };
      case 'unchanged':
        return { created: false, version: toView(result.version) };
      case 'missing':
        throw new ApiError('not_found', `Policy ${policyId} not found`);
      case 'base_required':
        throw new ApiError(
          'precondition_required',
          `Policy ${policyId} already has versions: name the version this edit is based on (baseVersion or If-Match)`,
          { currentVersion: toSummary(result.current) },
        );
      case 'stale':
        throw new ApiError(
          'conflict',
          result.current
            ? `Stale base: the latest version is ${result.current.number} (${result.current.digest})`
            : 'Stale base: the policy has no versions yet (use baseVersion 0)',
          { reason: 'stale_base', currentVersion: result.current ? toSummary(result.current) : null },
        );
    }
  }

  // Runs the same validation as create (hook-core schema, lint, files) and writes nothing: the editor's live lint.
  async validate(policyId: string, input: CreateVersionInput): Promise<ValidationResult> {
    if (!(await this.versions.policyExists(policyId))) throw policyNotFound(policyId);
    const prepared = prepareVersion(input);
    if (!prepared.ok) return { ok: false, errors: prepared.errors, warnings: [], digest: null, toml: null };
    const { warnings, digest, toml } = prepared.version;
    return { ok: true, errors: [], warnings, digest, toml };
  }

  // Versions of a policy, newest first.
  async list(policyId: string, query: { limit: number; cursor?: string }): Promise<Page<VersionSummary>> {
    const after = decodeCursor('policy-versions', query.cursor, numberKey);
    const rows = await this.versions.list(policyId, query.limit + 1, after?.n);
    if (rows.length === 0 && !(await this.versions.policyExists(policyId))) throw policyNotFound(policyId);
    return toPage('policy-versions', rows, query.limit, toSummary, (v) => ({ n: v.number }));
  }

  // One version (file contents on request).
  async get(policyId: string, number: number, withContent: boolean): Promise<VersionView> {
    const row = withContent
      ? await this.versions.findWithContent(policyId, number)
      : await this.versions.find(policyId, number);
    if (!row) throw versionNotFound(policyId, number);
    return toView(row);
  }

  // The canonical requirements.toml of a version (exactly what endpoints receive) and its digest.
  async toml(policyId: string, number: number): Promise<{ text: string; digest: string }> {
    const row = await this.versions.findToml(policyId, number);
    if (!row) throw versionNotFound(policyId, number);
    return { text: row.canonicalToml, digest: row.digest };
  }

  // Unified diff from version a to version b, as JSON or as one text/x-diff.
  async diff(
    policyId: string,
    a: number,
    b: number,
    format: 'json' | 'text',
    context: number,
  ): Promise<DiffView | string> {
    const [va, vb] = await Promise.all([
      this.versions.findWithContent(policyId, a),
      this.versions.findWithContent(policyId, b),
    ]);
    if (!va) throw versionNotFound(policyId, a);
    if (!vb) throw versionNotFound(policyId, b);
    const side = (v: VersionWithContent) => ({ toml: v.canonicalToml, files: v.files });
    const diff = diffContent(side(va), side(vb), { fromLabel: `v${a}`, toLabel: `v${b}`, context });
    if (format === 'text') return diff.text;
    return { policyId, from: a, to: b, fromDigest: va.digest, toDigest: vb.digest, toml: diff.toml, files: diff.files };
  }
}

function policyNotFound(id: string): ApiError {
  return new ApiError('not_found', `Policy ${id} not found`);
}

function versionNotFound(id: string, n: number): ApiError {
  return new ApiError('not_found', `Policy ${id} has no version ${n}`);
}
