// The one error type services throw; the exception filter renders it in the one error shape.
export type ErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'precondition_required'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal'
  // Agent identity (signed requests and enrollment decisions; see docs/agent.md "Endpoint identity").
  | 'signature_required'
  | 'signature_malformed'
  | 'session_expired'
  | 'clock_skew'
  | 'digest_mismatch'
  | 'signature_invalid'
  | 'replayed_request'
  | 'endpoint_pending'
  | 'endpoint_revoked';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  precondition_required: 428,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
  signature_required: 401,
  signature_malformed: 401,
  session_expired: 401,
  clock_skew: 401,
  digest_mismatch: 401,
  signature_invalid: 401,
  replayed_request: 401,
  endpoint_pending: 403,
  endpoint_revoked: 403,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }
}

// Maps an HTTP status to the error code used in the response body.
export function codeForStatus(status: number): ErrorCode {
  const found = (Object.entries(STATUS) as Array<[ErrorCode, number]>).find(
    ([code, s]) => s === status && code !== 'validation_failed',
  );
  if (found) return found[0];
  return status >= 500 ? 'internal' : 'bad_request';
}
