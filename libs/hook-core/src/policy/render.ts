// Canonical TOML rendering of a PolicyDocument: hook-system keys in a fixed order first, carried keys sorted.
import { stringify } from 'smol-toml';
import { HOOK_EVENTS } from '../types';
import { HANDLER_KEY_ORDER, HOOKS_TABLE_KEYS } from './keys';
import type { PolicyDocument } from './schema';
import { isPlainObject } from './parse';
import { floatPlaceholders, TomlFloat } from './toml-values';

type Floats = ReturnType<typeof floatPlaceholders>;

// Copies an object with its keys in the given order first, then the remaining keys sorted.
function ordered(
  obj: Record<string, unknown>,
  first: readonly string[],
  mapValue: (v: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of first) if (obj[k] !== undefined) out[k] = mapValue(obj[k]);
  for (const k of Object.keys(obj).sort()) if (!(k in out) && obj[k] !== undefined) out[k] = mapValue(obj[k]);
  return out;
}

// Recursively sorts object keys (arrays keep their order) for a stable rendering of carried-through values; integral
// floats become placeholders that `floats.restore` turns back into float text.
function sortDeep(v: unknown, floats: Floats): unknown {
  if (v instanceof TomlFloat) return floats.replace(v);
  if (Array.isArray(v)) return v.map((x) => sortDeep(x, floats));
  if (isPlainObject(v)) return ordered(v, [], (x) => sortDeep(x, floats));
  return v;
}

// Orders one matcher group: matcher, then hooks with each handler's keys in canonical order.
function orderGroup(g: unknown): unknown {
  if (!isPlainObject(g)) return g;
  return ordered(g, ['matcher', 'hooks'], (v: unknown): unknown =>
    Array.isArray(v) ? v.map((h: unknown) => (isPlainObject(h) ? ordered(h, HANDLER_KEY_ORDER, (x) => x) : h)) : v,
  );
}

/** Renders a policy as canonical TOML (stable key order; parse(render(p)) deep-equals p). */
export function renderPolicyToml(policy: PolicyDocument): string {
  const doc: Record<string, unknown> = {};
  const floats = floatPlaceholders();
  const deep = (v: unknown): unknown => sortDeep(v, floats);
  if (policy.allow_managed_hooks_only !== undefined) doc['allow_managed_hooks_only'] = policy.allow_managed_hooks_only;
  if (policy.features !== undefined) doc['features'] = ordered(policy.features, ['hooks', 'zerocode_hooks'], deep);
  if (policy.hooks !== undefined) {
    const hooks = policy.hooks as Record<string, unknown>;
    doc['hooks'] = ordered(hooks, [...HOOKS_TABLE_KEYS, ...HOOK_EVENTS], (v) =>
      Array.isArray(v) ? v.map(orderGroup) : v,
    );
  }
  for (const k of Object.keys(policy).sort()) {
    if (k in doc) continue;
    const v = policy[k];
    if (v !== undefined) doc[k] = deep(v);
  }
  return floats.restore(stringify(doc));
}
