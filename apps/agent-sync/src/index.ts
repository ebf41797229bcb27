// @hookwarden/agent-sync: the endpoint daemon (enroll, pull signed bundles, materialize, report, upload).
export { AGENT_VERSION } from './version';
