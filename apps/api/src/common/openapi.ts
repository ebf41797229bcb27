// The OpenAPI document: operation decorators (summary, description, the errors an operation can answer) and the
// finishing pass that makes the generated document exact for OpenAPI 3.0 clients — component schemas regenerated from
// zod (typed properties, `nullable` instead of type arrays), the one error schema on every error response, auth
// errors on every protected operation, explicit `security: []` on public ones.
import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import { z } from 'zod';
import { DTO_SCHEMAS } from './zod-dto';

type Json = Record<string, unknown>;

/** Error statuses an operation may document, with what each means here. */
export const ERROR_DESCRIPTIONS = {
  400: 'The request is invalid; `error.details` lists every problem with its location.',
  401: 'Missing or invalid credentials (`Authorization: Bearer <token>`, or the SSO session cookie).',
  403: 'The credential is valid but its role may not use this operation.',
  404: 'The resource does not exist.',
  409: 'Conflicts with the current state; the message (and `error.details`) say why.',
  412: 'The If-Match precondition failed.',
  413: 'The request body is too large.',
  415: 'Unsupported content type or encoding.',
  428: 'A precondition is required (send the base version or If-Match).',
  429: 'Too many failed authentications from this address, or too much load; retry after `Retry-After` seconds.',
  503: 'A dependency is unavailable; retry after `Retry-After` seconds.',
} as const satisfies Record<number, string>;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

export const ERROR_SCHEMA_NAME = 'ErrorBody';
const ISSUE_SCHEMA_NAME = 'ValidationIssue';
const ERROR_REF = { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` };

/** Summary, description and the specific errors of one operation (400/401/403/429 are added where they apply). */
export interface OperationDoc {
  summary: string;
  description?: string;
  errors?: ErrorStatus[];
}

// Documents an operation: its summary and description, and each listed error with the one error schema.
export function ApiDoc(doc: OperationDoc): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: doc.summary, ...(doc.description ? { description: doc.description } : {}) }),
    ...(doc.errors ?? []).map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status], schema: ERROR_REF }),
    ),
  );
}

/** The one error shape, as OpenAPI schemas. */
function errorSchemas(): Record<string, Json> {
  return {
    [ISSUE_SCHEMA_NAME]: {
      type: 'object',
      description: 'One validation problem.',
      properties: {
        path: {
          type: 'string',
          description: 'JSON path of the value, e.g. `$.limit` or `$.files[0].path`',
          example: '$.limit',
        },
        in: { type: 'string', enum: ['query', 'path', 'body', 'header'], description: 'Which part of the request' },
        message: { type: 'string', example: 'Too big: expected number to be <=200' },
        code: { type: 'string', example: 'too_big' },
      },
      required: ['path', 'message'],
    },
    [ERROR_SCHEMA_NAME]: {
      type: 'object',
      description: 'Every error answer has this shape.',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: {
              type: 'string',
              example: 'validation_failed',
              description:
                'bad_request, validation_failed, unauthorized, forbidden, not_found, conflict, precondition_failed, ' +
                'precondition_required, payload_too_large, unsupported_media_type, rate_limited, unavailable, internal',
            },
            message: {
              type: 'string',
              example: 'Invalid request: $.limit (query): Too big: expected number to be <=200',
            },
            details: {
              description:
                'On validation_failed: the list of problems (ValidationIssue). On other errors: context (e.g. the ' +
                'current version on 409/428, the usage that blocks a delete).',
              oneOf: [
                { type: 'array', items: { $ref: `#/components/schemas/${ISSUE_SCHEMA_NAME}` } },
                { type: 'object' },
              ],
            },
            requestId: {
              type: 'string',
              description: 'Also in the X-Request-Id header',
              example: 'b7e3c1de-0f3a-4b8e-9d59-5f1c2a7d9e10',
            },
          },
          required: ['code', 'message', 'requestId'],
        },
      },
      required: ['error'],
    },
  };
}

const SAFE_INT = 9007199254740991;

/** Example values by string format. */
const EXAMPLES: Record<string, string> = {
  uuid: '3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b',
  'date-time': '2026-12-01T09:30:00.000Z',
};

// Rewrites a zod-generated JSON schema into what OpenAPI 3.0 linters and generators expect.
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = tidy(v);
  // Examples for the common formats, so every id and time in the document shows its form.
  if (out.example === undefined && out.type === 'string' && typeof out.format === 'string' && out.format in EXAMPLES) {
    out.example = EXAMPLES[out.format];
  }
  if (out.type === 'integer') {
    if (out.minimum === -SAFE_INT) delete out.minimum;
    if (out.maximum === SAFE_INT) delete out.maximum;
  }
  // A string with several patterns is an allOf of patterns: the parent still says it is a string.
  if (out.allOf && out.type === undefined && (out.allOf as Json[]).every((s) => 'pattern' in s)) out.type = 'string';
  if (out.nullable === true && out.type === undefined) {
    const branches = (out.anyOf ?? out.oneOf) as Json[] | undefined;
    if (branches) {
      for (const b of branches) if (b.type !== undefined) b.nullable = true;
    }
    delete out.nullable; // an untyped schema already admits null
  }
  return out;
}

// The OpenAPI 3.0 schema of a zod schema (request side: inputs before defaults and transforms).
export function openApiSchema(schema: z.ZodType): Json {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'openapi-3.0',
    unrepresentable: 'any',
  });
  return tidy(json) as Json;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;
/** Methods whose requests may carry a body (parsed, so refusable, whether the operation reads it or not). */
const BODY_METHODS: ReadonlySet<string> = new Set(['put', 'post', 'patch']);

// Finishes the generated document (see the file comment). `tags` names and describes every tag operations use.
export function finishOpenApiDocument(doc: OpenAPIObject, tags: Record<string, string>): OpenAPIObject {
  const schemas = (doc.components ??= {}).schemas ?? {};
  doc.components.schemas = schemas;
  for (const [name, schema] of DTO_SCHEMAS) {
    if (name in schemas) schemas[name] = openApiSchema(schema);
  }
  Object.assign(schemas, errorSchemas());
  const used = new Set<string>();
  for (const ops of Object.values(doc.paths)) {
    for (const method of METHODS)
      for (const t of (((ops as Json)[method] as Json | undefined)?.tags ?? []) as string[]) used.add(t);
  }
  doc.tags = [...used].sort().map((name) => ({ name, description: tags[name] ?? name }));
  doc.servers = [{ url: '/', description: 'This server' }];
  doc.info.license ??= { name: 'UNLICENSED (proprietary)' };
  const bearer = doc.components.securitySchemes?.bearer as Json | undefined;
  if (bearer) {
    delete bearer.bearerFormat;
    bearer.description =
      'An opaque API token (`hwt_…`, people and personal tokens) or agent credential (`hwe_…`, endpoints), only in ' +
      'the Authorization header (never the query string or body). Not a JWT.';
  }
  for (const ops of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = (ops as Json)[method] as Json | undefined;
      if (!op) continue;
      const responses = (op.responses ??= {}) as Record<string, Json>;
      const add = (status: ErrorStatus): void => {
        responses[String(status)] ??= { description: ERROR_DESCRIPTIONS[status] };
        const r = responses[String(status)]!;
        r.content ??= { 'application/json': { schema: ERROR_REF } };
      };
      const params = (op.parameters ?? []) as Json[];
      // A body that is not JSON is refused with 400, and one over the body limit with 413, by every operation that
      // can carry one, body declared or not.
      if (params.length > 0 || op.requestBody || BODY_METHODS.has(method)) add(400);
      if (BODY_METHODS.has(method)) add(413);
      for (const p of params) if (p.schema) p.schema = tidy(p.schema);
      const secured =
        Array.isArray(op.security) &&
        (op.security as Json[]).some((s) => 'bearer' in s || 'cookie' in s || 'agentSignature' in s);
      if (secured) {
        add(401);
        add(403);
        add(429);
        // An admin write may be refused while a destination that requires audit delivery cannot record it.
        if (method !== 'get' && method !== 'head' && method !== 'options') add(503);
      } else {
        op.security = [];
      }
      // Every error answer is the one JSON error shape, whatever the operation's success type is.
      for (const [status, r] of Object.entries(responses)) {
        if (/^[45]/.test(status)) r.content = { 'application/json': { schema: ERROR_REF } };
      }
    }
  }
  return doc;
}
