// Public API of the API↔agent wire contract: the error body, the status-report limits and the one-poll header.
export { parseErrorBody, type ErrorBody } from './error-body';
export {
  boundStatusErrors,
  boundStatusFiles,
  STATUS_MAX_DIGEST_CHARS,
  STATUS_MAX_ERROR_CHARS,
  STATUS_MAX_ERRORS,
  STATUS_MAX_FILES,
  SHADOW_LAYER_HEADER,
  STATUS_MAX_PATH_CHARS,
} from './agent-status';
export { parseRetryAfter } from './http';
