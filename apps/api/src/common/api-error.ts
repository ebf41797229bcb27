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
  | 'internal';

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
