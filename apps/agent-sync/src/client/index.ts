// The agent's API client (reused by the spool uploader).
export {
  ApiClient,
  ApiHttpError,
  ApiNetworkError,
  parseRetryAfter,
  type ApiClientOptions,
  type RequestOptions,
} from './api-client';
export { Backoff } from './backoff';
