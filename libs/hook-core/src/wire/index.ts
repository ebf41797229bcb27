// Public API of the API↔agent wire contract: the error body and the status-report limits.
export { errorBodySchema, errorDetailSchema, parseErrorBody, type ErrorBody, type ErrorDetail } from './error-body';
export { boundStatusErrors, STATUS_MAX_ERROR_CHARS, STATUS_MAX_ERRORS } from './agent-status';
