// Global search on the read pool: one bounded query per kind (limit + 1 rows to know whether there are more).
import type pg from 'pg';
import { Injectable } from '@nestjs/common';
import { PgPools } from '../database/pg-pools';
import { containsPattern } from '../hook-runs/hook-runs.sql';
import type { SearchTerms } from './search-terms';

@Injectable()
export class SearchRepository {
  constructor(private readonly pools: PgPools) {}

  // Runs one query with its parameters.
  private async rows<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    return (await this.pools.read.query<T & pg.QueryResultRow>(text, values)).rows;
  }

  // Endpoints whose hostname contains the text, or whose id it is.
  endpoints(t: SearchTerms, n: number) {
    return this.rows<{ id: string; hostname: string; group_id: string; group_name: string; platform: string }>(
      `SELECT e.id, e.hostname, e.group_id, g.name AS group_name, e.platform
         FROM endpoints e JOIN groups g ON g.id = e.group_id
        WHERE e.hostname ILIKE $1 ESCAPE '\\' OR e.id = $2::uuid
        ORDER BY (e.id = $2::uuid) DESC NULLS LAST, length(e.hostname), e.hostname COLLATE "C", e.id LIMIT $3`,
      [containsPattern(t.text), t.uuid, n],
    );
  }

  // Groups whose name contains the text.
  groups(t: SearchTerms, n: number) {
    return this.rows<{ id: string; name: string }>(
      `SELECT id, name FROM groups WHERE name ILIKE $1 ESCAPE '\\' OR id = $2::uuid
        ORDER BY length(name), name COLLATE "C", id LIMIT $3`,
      [containsPattern(t.text), t.uuid, n],
    );
  }

  // Inventoried hooks (by definition hash) whose hash starts with the text or whose captured command contains it.
  hooks(t: SearchTerms, n: number) {
    return this.rows<{ hash: string; program: string | null; command: string | null; endpoints: number }>(
      `SELECT hash, min(program) AS program, min(command) AS command, count(DISTINCT endpoint_id)::int AS endpoints
         FROM endpoint_inventory_hooks
        WHERE ($1::text IS NOT NULL AND (hash LIKE $1 || '%' OR hash LIKE 'sha256:' || $1 || '%')) OR command ILIKE $2 ESCAPE '\\'
        GROUP BY hash ORDER BY count(DISTINCT endpoint_id) DESC, hash LIMIT $3`,
      [t.hex, containsPattern(t.text), n],
    );
  }

  // Policies whose name contains the text.
  policies(t: SearchTerms, n: number) {
    return this.rows<{ id: string; name: string; latest_version: number }>(
      `SELECT id, name, latest_version FROM policies WHERE name ILIKE $1 ESCAPE '\\' OR id = $2::uuid
        ORDER BY length(name), name COLLATE "C", id LIMIT $3`,
      [containsPattern(t.text), t.uuid, n],
    );
  }

  // Policy versions by message, digest prefix, or policy name with a version number ("base v3").
  versions(t: SearchTerms, n: number) {
    return this.rows<{ policy_id: string; policy_name: string; number: number; message: string; digest: string }>(
      `SELECT p.id AS policy_id, p.name AS policy_name, v.number, v.message, v.digest
         FROM policy_versions v JOIN policies p ON p.id = v.policy_id
        WHERE v.message ILIKE $1 ESCAPE '\\'
           OR ($2::text IS NOT NULL AND (v.digest LIKE $2 || '%' OR v.digest LIKE 'sha256:' || $2 || '%'))
           OR ($3::int IS NOT NULL AND v.number = $3 AND ($4::text IS NULL OR p.name ILIKE $4 ESCAPE '\\'))
        ORDER BY v.created_at DESC, v.id LIMIT $5`,
      [containsPattern(t.text), t.hex, t.number, t.rest === null ? null : containsPattern(t.rest), n],
    );
  }

  // Releases by id, digest prefix, or revision number (within groups whose name the rest of the text names).
  releases(t: SearchTerms, n: number) {
    return this.rows<{
      id: string;
      group_id: string;
      group_name: string;
      revision: number;
      status: string;
      digest: string;
    }>(
      `SELECT r.id, r.group_id, g.name AS group_name, r.revision, r.status, r.digest
         FROM releases r JOIN groups g ON g.id = r.group_id
        WHERE r.id = $1::uuid
           OR ($2::text IS NOT NULL AND (r.digest LIKE $2 || '%' OR r.digest LIKE 'sha256:' || $2 || '%'))
           OR ($3::int IS NOT NULL AND r.revision = $3 AND ($4::text IS NULL OR g.name ILIKE $4 ESCAPE '\\'))
        ORDER BY r.created_at DESC, r.id LIMIT $5`,
      [t.uuid, t.hex, t.number, t.rest === null ? null : containsPattern(t.rest), n],
    );
  }
}
