// Keeps credentials out of logs: query parameters that may carry one, credential-shaped values anywhere in a URL,
// and the headers that do.

/** Query parameter names (normalised: lower case, without `_ - .` and blanks) whose values are never logged. */
const SECRET_NAMES = new Set([
  'accesstoken',
  'token',
  'secret',
  'apikey',
  'key',
  'password',
  'code',
  'idtoken',
  'refreshtoken',
  'clientsecret',
  'auth',
  'authorization',
]);
/** A normalised name containing one of these is a credential too (`hw_token`, `client-secret`, `db_password`). */
const SECRET_PARTS = /token|secret|passw|apikey|credential/;
/** Values shaped like Hookwarden credentials (API tokens, agent credentials, enrollment secrets, sessions). */
const CREDENTIAL_VALUE = /hw[tesc]_[A-Za-z0-9_-]+/g;
const REDACTED = '[REDACTED]';
const MAX_DECODES = 3;

// Percent-decodes up to MAX_DECODES times (a doubly encoded name is still that name); stops at invalid encoding.
function decodeRepeatedly(raw: string): string {
  let s = raw;
  for (let i = 0; i < MAX_DECODES && s.includes('%'); i++) {
    try {
      s = decodeURIComponent(s);
    } catch {
      break;
    }
  }
  return s;
}

// True when a query parameter name denotes a credential, in any spelling: `access_token`, `ACCESS-TOKEN`,
// `access_token[]`, `access_token[0]`, `access%5Ftoken`, `accessToken`, `x.token`.
export function isSecretParam(rawName: string): boolean {
  const decoded = decodeRepeatedly(rawName.replace(/\+/g, ' ')).toLowerCase();
  // `a[b][c]` and `a.b` (qs-style nesting): the base name and every part count.
  const parts = decoded.split(/[[\].]+/).map((p) => p.replace(/[\s_\-\u0000]+/g, ''));
  const whole = decoded.replace(/[\s_\-.[\]\u0000]+/g, '');
  return [whole, ...parts].some((p) => p !== '' && (SECRET_NAMES.has(p) || SECRET_PARTS.test(p)));
}

// A string with every credential-shaped value (hwt_…, hwe_…, hws_…, hwc_…) replaced, also when percent-encoded.
function redactValues(text: string): string {
  const out = text.replace(CREDENTIAL_VALUE, (m) => `${m.slice(0, 4)}${REDACTED}`);
  // An encoded underscore (hwt%5F…) hides the shape from the pattern: decode and look again.
  if (!/hw[tesc](%25)*%5f/i.test(out)) return out;
  const decoded = decodeRepeatedly(out);
  return decoded.replace(CREDENTIAL_VALUE, (m) => `${m.slice(0, 4)}${REDACTED}`);
}

// The URL with the value of every credential-like query parameter replaced by [REDACTED], and any
// credential-shaped value anywhere (path or query) too. Linear time.
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  if (q === -1) return redactValues(url);
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      return isSecretParam(rawName) && eq !== -1 ? `${rawName}=${REDACTED}` : redactValues(pair);
    });
  return `${redactValues(url.slice(0, q))}?${parts.join('&')}`;
}

// A copy of a parsed query value with credential-like entries replaced (nested objects and arrays too).
function redactQueryValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactValues(value);
  if (!value || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redactQueryValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] = isSecretParam(k) ? REDACTED : redactQueryValue(v, depth + 1);
  return out;
}

// A copy of a parsed query object with credential-like values replaced.
export function redactQuery(query: unknown): unknown {
  return redactQueryValue(query, 0);
}

/** Header names whose values are credentials. */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'] as const;

// A copy of a header map with credential headers replaced.
export function redactHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  const out: Record<string, unknown> = { ...(headers as Record<string, unknown>) };
  for (const h of SECRET_HEADERS) if (h in out) out[h] = '[REDACTED]';
  return out;
}

/** pino serializers for pino-http's `req` and `res`: no credential in a URL, query or header is ever written. */
export const redactingSerializers = {
  req: (req: Record<string, unknown>): Record<string, unknown> => ({
    ...req,
    url: redactUrl(req.url as string | undefined),
    query: redactQuery(req.query),
    headers: redactHeaders(req.headers),
  }),
  res: (res: Record<string, unknown>): Record<string, unknown> => ({ ...res, headers: redactHeaders(res.headers) }),
};
