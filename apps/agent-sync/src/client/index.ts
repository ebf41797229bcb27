// The agent's API client (reused by the spool uploader).
export {
  ApiBodyError,
  ApiClient,
  ApiHttpError,
  ApiNetworkError,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  parseRetryAfter,
  readBody,
  readJson,
  type ApiClientOptions,
  type BodyLimits,
  type RequestOptions,
} from './api-client';
export { Backoff, sleep } from './backoff';
