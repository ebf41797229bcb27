// Keeps credentials out of logs: query parameters that may carry one, and the headers that do.
/** Query parameters whose values are never logged (credentials some clients put in URLs). */
const SECRET_PARAMS = /^(access_token|token|secret|api_key|apikey|key|password|code|id_token|refresh_token)$/i;

// The URL with the value of every credential-like query parameter replaced by [REDACTED]. Linear time.
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      return SECRET_PARAMS.test(name) && eq !== -1 ? `${rawName}=[REDACTED]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

// A copy of a parsed query object with credential-like values replaced.
export function redactQuery(query: unknown): unknown {
  if (!query || typeof query !== 'object') return query;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query as Record<string, unknown>))
    out[k] = SECRET_PARAMS.test(k) ? '[REDACTED]' : v;
  return out;
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
