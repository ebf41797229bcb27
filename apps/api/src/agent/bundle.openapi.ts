// OpenAPI description of GET /v1/agent/bundle and GET /v1/agent/shadow-bundle (served in front of Fastify, so Nest's
// scanner does not see them).
export const BUNDLE_PATH = '/v1/agent/bundle';
export const SHADOW_BUNDLE_PATH = '/v1/agent/shadow-bundle';

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {},
        requestId: { type: 'string' },
      },
      required: ['code', 'message', 'requestId'],
    },
  },
  required: ['error'],
};

// One bundle route's operation (the two differ in what they serve and what 204 means).
function bundleOperation(op: {
  operationId: string;
  summary: string;
  description: string;
  none: string;
  signed: string;
  /** Header parameters and response headers of this route beyond the common ones. */
  extraParameters?: object[];
  extraHeaders?: Record<string, object>;
}) {
  const headers = { ETag: { schema: { type: 'string' } }, ...op.extraHeaders };
  return {
    tags: ['agent'],
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    security: [{ agentSignature: [] }, { bearer: [] }],
    parameters: [
      { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
      { name: 'Prefer', in: 'header', required: false, schema: { type: 'string', example: 'wait=30' } },
      ...(op.extraParameters ?? []),
    ],
    responses: {
      '200': {
        description: 'The bundle: the canonical manifest text, its Ed25519 signature (base64) and the signing key id.',
        headers,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                manifest: { type: 'string', description: `Canonical JSON text of the manifest (${op.signed})` },
                signature: { type: 'string' },
                keyId: { type: 'string' },
                digest: { type: 'string' },
                revision: { type: 'integer' },
                releaseId: { type: 'string', format: 'uuid' },
              },
              required: ['manifest', 'signature', 'keyId', 'digest', 'revision', 'releaseId'],
            },
          },
        },
      },
      '204': { description: op.none, headers: op.extraHeaders },
      '304': { description: 'Unchanged (If-None-Match matched).', headers: op.extraHeaders },
      '401': {
        description: 'Missing, unknown or revoked credential.',
        content: { 'application/json': { schema: errorSchema } },
      },
      '403': { description: 'Not an agent credential.', content: { 'application/json': { schema: errorSchema } } },
      '503': {
        description: 'Too many held requests on this instance, or the database is unreachable; see Retry-After.',
        content: { 'application/json': { schema: errorSchema } },
      },
    },
  };
}

export const bundleOpenApiPath = {
  get: bundleOperation({
    operationId: 'AgentBundle_get',
    summary: "This endpoint's signed bundle (ETag revalidation and long poll)",
    description:
      'Agent credential. `ETag` is the bundle digest; `If-None-Match` with it answers 304. `Prefer: wait=N` (N ≤ 60) ' +
      "holds the request until this endpoint's bundle changes (200) or N seconds pass (304, or 204 when the group " +
      'has no release for this endpoint); a wait of 10 s or more ends at a random moment of its last fifth, so ' +
      'polls that began together do not return together. A release, pause or abort wakes held requests on every ' +
      'API instance. ' +
      'Never a shadow bundle (GET /v1/agent/shadow-bundle). One poll per agent: a request carrying ' +
      '`Hookwarden-Shadow` (the shadow layer the agent holds: its quoted ETag, or `none`) also ends when the ' +
      "endpoint's shadow layer differs from it — at once when it already does (304 unless the managed bundle changed " +
      'too) — and every answer then carries `Hookwarden-Shadow` with the shadow layer to hold, so the agent fetches ' +
      'GET /v1/agent/shadow-bundle (without waiting) only when the two differ.',
    none: 'No release targets this endpoint yet.',
    signed: 'the signed bytes',
    extraParameters: [
      {
        name: 'Hookwarden-Shadow',
        in: 'header',
        required: false,
        description: 'The shadow layer the agent holds: its quoted ETag, or `none` (any other value is ignored).',
        schema: { type: 'string', example: 'none' },
      },
    ],
    extraHeaders: {
      'Hookwarden-Shadow': {
        description:
          'With the request header: the shadow layer this endpoint should hold (the ETag GET ' +
          '/v1/agent/shadow-bundle answers with, or `none`).',
        schema: { type: 'string' },
      },
    },
  }),
};

export const shadowBundleOpenApiPath = {
  get: bundleOperation({
    operationId: 'AgentShadowBundle_get',
    summary: "This endpoint's signed shadow bundle: the shadow layer (ETag revalidation and long poll)",
    description:
      "Agent credential. The group's live shadow release (strategy shadow) when this endpoint's ring is reached: the " +
      'shadow form of the version (managed_dir inside the shadow directory), signed with the bundle keys over ' +
      '`hookwarden.shadow-bundle/1\\n` + manifest (never valid as a managed bundle), its manifest naming the release ' +
      "(`shadow.releaseId`) and the group, revisions from the group's one sequence. Same ETag, `If-None-Match` and " +
      "`Prefer: wait=N` rules as GET /v1/agent/bundle; a shadow release's creation, ring advance, promotion or abort " +
      'wakes held requests. 204: no shadow layer for this endpoint — answered at once when If-None-Match names one ' +
      '(the agent removes its shadow layer).',
    none: 'No shadow layer for this endpoint (none live, its ring not reached, or promoted/aborted): remove it.',
    signed: 'signed behind the shadow context `hookwarden.shadow-bundle/1\\n`',
  }),
};
