// OpenAPI description of GET /v1/agent/bundle (served directly by Fastify, so Nest's scanner does not see it).
export const BUNDLE_PATH = '/v1/agent/bundle';

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

export const bundleOpenApiPath = {
  get: {
    tags: ['agent'],
    operationId: 'AgentBundle_get',
    summary: "This endpoint's signed bundle (ETag revalidation and long poll)",
    description:
      'Agent credential. `ETag` is the bundle digest; `If-None-Match` with it answers 304. `Prefer: wait=N` (N ≤ 60) ' +
      "holds the request until this endpoint's bundle changes (200) or N seconds pass (304, or 204 when the group " +
      'has no release for this endpoint). A release, pause or abort wakes held requests on every API instance.',
    security: [{ agentSignature: [] }, { bearer: [] }],
    parameters: [
      { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
      { name: 'Prefer', in: 'header', required: false, schema: { type: 'string', example: 'wait=30' } },
    ],
    responses: {
      '200': {
        description: 'The bundle: the canonical manifest text, its Ed25519 signature (base64) and the signing key id.',
        headers: { ETag: { schema: { type: 'string' } } },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                manifest: { type: 'string', description: 'Canonical JSON text of the manifest (the signed bytes)' },
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
      '204': { description: 'No release targets this endpoint yet.' },
      '304': { description: 'Unchanged (If-None-Match matched).' },
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
  },
};
