// @hookwarden/agent-sync: the endpoint daemon (enroll, pull signed bundles, materialize, report, upload).
export { AGENT_VERSION } from './version';
export * from './client';
export { Layer, requirementsPathFor, LAYER_DIR } from './materialize/layer';
export { verifyBundle, BundleRejected } from '@hookwarden/hook-core';
export { readCredentials, writeCredentials, type Credentials } from './state/credentials';
export { readEndpointKey, type EndpointKey } from './state/endpoint-key';
