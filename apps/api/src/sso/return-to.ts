// Where the browser may go after sign-in: one normal form of a path on this server, or a reason to refuse.

export const DEFAULT_RETURN_TO = '/console/';
const CONSOLE = '/console';

/** A dot segment, also percent-encoded (browsers resolve `%2e%2e` like `..`). */
const DOT = /^(?:\.|%2e){1,2}$/i;

export type ReturnToResult = { ok: true; path: string } | { ok: false; message: string };

// Normalises a sign-in `returnTo`: dot segments resolved, repeated slashes collapsed (the query string kept as
// given). Refused: anything but an absolute path (scheme, host, `//`, backslash, blanks), dot segments that climb
// above `/`, and a path that names the console (`/console/…`) but resolves outside it.
export function normaliseReturnTo(raw: string): ReturnToResult {
  const refuse = (why: string): ReturnToResult => ({ ok: false, message: `must be a path on this server ${why}` });
  if (!raw.startsWith('/') || raw.startsWith('//')) return refuse('(such as /console/), not a URL');
  if (/[\\\s]/.test(raw) || /%5c/i.test(raw)) return refuse('without backslashes or blanks');
  const cut = raw.search(/[?#]/);
  const pathPart = cut === -1 ? raw : raw.slice(0, cut);
  const rest = cut === -1 ? '' : raw.slice(cut);
  const segments = pathPart.split('/').slice(1);
  const out: string[] = [];
  for (const [i, seg] of segments.entries()) {
    const last = i === segments.length - 1;
    if (DOT.test(seg)) {
      if (seg.replace(/%2e/gi, '.') === '..') {
        if (out.length === 0) return refuse('(its `..` segments climb above /)');
        out.pop();
      }
      if (last) out.push('');
      continue;
    }
    if (seg === '' && !last) continue;
    out.push(seg);
  }
  const path = `/${out.join('/')}`;
  const namesConsole = pathPart === CONSOLE || pathPart.startsWith(`${CONSOLE}/`);
  if (namesConsole && path !== CONSOLE && !path.startsWith(`${CONSOLE}/`))
    return refuse('(it names the console but resolves outside /console/)');
  return { ok: true, path: path + rest };
}
