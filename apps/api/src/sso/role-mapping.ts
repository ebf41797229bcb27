// Maps a person's IdP claims to a Hookwarden role: pure functions, no I/O.
import type { UserRole } from '../auth/principal';

/** Most groups read from one claim (an IdP that sends more is cut here, not trusted to be small). */
const MAX_GROUPS = 1000;
const MAX_GROUP_LENGTH = 512;

// The value at a dotted claim path (`groups`, `realm_access.roles`); a key containing a dot is tried whole first.
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let current: unknown = claims;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

// The person's groups from the configured claim: an array of strings, or one space/comma-separated string.
export function groupsOf(claims: Record<string, unknown>, path: string): string[] {
  const value = claimAt(claims, path);
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  const out: string[] = [];
  for (const g of raw) {
    if (typeof g !== 'string' || g === '' || g.length > MAX_GROUP_LENGTH) continue;
    if (!out.includes(g)) out.push(g);
    if (out.length >= MAX_GROUPS) break;
  }
  return out;
}

export interface RoleMapping {
  adminGroups: readonly string[];
  auditorGroups: readonly string[];
}

// The strongest role any of the groups grants, or null when none is mapped (the person is refused).
export function roleFor(groups: readonly string[], mapping: RoleMapping): UserRole | null {
  if (groups.some((g) => mapping.adminGroups.includes(g))) return 'admin';
  if (groups.some((g) => mapping.auditorGroups.includes(g))) return 'auditor';
  return null;
}

// Whether `next` grants less than `previous` (admin → auditor, or a role → none).
export function isDowngrade(previous: UserRole, next: UserRole | null): boolean {
  return next === null || (previous === 'admin' && next === 'auditor');
}
