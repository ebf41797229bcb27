// OpenAPI helpers of the SSO routes: documented error responses in the one error shape.
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`error.details` names each problem)',
  401: 'Missing, invalid, expired or revoked credentials or session',
  403: 'Authenticated, but not allowed (role, CSRF token, or not a signed-in person)',
  404: 'Not found (or SSO is not configured)',
  429: 'Too many failed authentications from this client (see Retry-After)',
  503: 'The identity provider cannot be reached (see Retry-After)',
};

// Documents the error statuses a route answers, each with the one error body.
export function ErrorResponses(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        schema: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'requestId'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                details: { type: 'array', items: { type: 'object', additionalProperties: true } },
                requestId: { type: 'string' },
              },
            },
          },
        },
      }),
    ),
  );
}
