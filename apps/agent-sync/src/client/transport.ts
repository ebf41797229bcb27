// The agent's HTTP transport: hook-core's fetch-compatible function on node:http/node:https, shared with the admin
// CLI (see @hookwarden/hook-core/transport for why neither uses Node's global fetch).
export {
  transportFetch,
  type HttpBody,
  type HttpResponse,
  type HttpRequestInit,
} from '@hookwarden/hook-core/transport';
