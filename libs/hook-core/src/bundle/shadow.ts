// Shadow bundles (issue 27): a policy version delivered beside the enforced policy, as the shadow layer. Two rules of
// the contract live here, for the API (which builds and signs them) and the agent (which verifies them):
// - Domain separation: a shadow manifest is signed over SHADOW_SIGNING_CONTEXT + its text, a managed one over its
//   text alone, so neither verifies as the other — not even on an agent older than shadow releases (it checks the
//   signature over the text and refuses a shadow bundle served in place of the managed one).
// - Relocation: the version's managed_dir / windows_managed_dir become the shadow directory's `managed/`, and every
//   hook command naming the old directory names the new one, so the shadow hooks run the shadow version's scripts and
//   never touch the enforced layer's.
import { parsePolicyToml } from '../policy/parse';
import { renderPolicyToml } from '../policy/render';
import type { PolicyDocument, PolicyHandler } from '../policy/schema';
import { type BundleLayer, SHADOW_MANAGED_DIRS } from './content';

/** Prefix of the bytes a shadow manifest's signature covers (never a prefix of canonical JSON, which starts `{`). */
export const SHADOW_SIGNING_CONTEXT = 'hookwarden.shadow-bundle/1\n';

/** The bytes a bundle's signature covers: the manifest text, behind the shadow context for a shadow bundle. */
export function bundleSigningText(manifestText: string, layer: BundleLayer): string {
  return layer === 'shadow' ? SHADOW_SIGNING_CONTEXT + manifestText : manifestText;
}

// Regex source matching a literal string.
function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Replaces every whole-path occurrence of `from` in a command (not inside a longer path: `/opt/hw` is not replaced
// in `/opt/hw-old` or `/x/opt/hw`) with `to`. Windows paths match case-insensitively and with either separator.
function replacePath(command: string, from: string, to: string, windows: boolean): string {
  const variants = windows ? [...new Set([from, from.replace(/\\/g, '/')])] : [from];
  let out = command;
  for (const v of variants) {
    const re = new RegExp(`(?<![\\w.\\-/\\\\])${literal(v)}(?![\\w.\\-])`, windows ? 'gi' : 'g');
    out = out.replace(re, () => to);
  }
  return out;
}

/**
 * The shadow form of a policy: managed_dir and windows_managed_dir moved to the shadow directory's `managed/`, and
 * the commands naming them rewritten. Everything else (matchers, timeouts, other keys) is unchanged.
 */
export function shadowPolicyDocument(policy: PolicyDocument): PolicyDocument {
  const hooks = policy.hooks;
  if (!hooks) return policy;
  const posix = typeof hooks.managed_dir === 'string' ? hooks.managed_dir : undefined;
  const win = typeof hooks.windows_managed_dir === 'string' ? hooks.windows_managed_dir : undefined;
  const relocate = (cmd: string | undefined): string | undefined => {
    if (cmd === undefined) return undefined;
    let out = cmd;
    if (posix !== undefined) out = replacePath(out, posix, SHADOW_MANAGED_DIRS.posix, false);
    if (win !== undefined) out = replacePath(out, win, SHADOW_MANAGED_DIRS.win32, true);
    return out;
  };
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(hooks)) {
    if (key === 'managed_dir') next[key] = SHADOW_MANAGED_DIRS.posix;
    else if (key === 'windows_managed_dir') next[key] = SHADOW_MANAGED_DIRS.win32;
    else if (Array.isArray(value)) {
      next[key] = value.map((group) => ({
        ...group,
        hooks: group.hooks.map((h: PolicyHandler) => {
          const out: PolicyHandler = { ...h };
          for (const k of ['command', 'command_windows', 'commandWindows'] as const) {
            if (h[k] !== undefined) out[k] = relocate(h[k]);
          }
          return out;
        }),
      }));
    } else next[key] = value;
  }
  return { ...policy, hooks: next as PolicyDocument['hooks'] };
}

/** The shadow requirements.toml of a version's canonical requirements (throws when the text is not a valid policy). */
export function shadowRequirementsToml(canonicalToml: string): string {
  const parsed = parsePolicyToml(canonicalToml);
  if (!parsed.ok) {
    const first = parsed.diagnostics.find((d) => d.severity === 'error');
    throw new Error(`requirements.toml: ${first?.message ?? 'not a valid policy'}`);
  }
  return renderPolicyToml(shadowPolicyDocument(parsed.policy));
}
