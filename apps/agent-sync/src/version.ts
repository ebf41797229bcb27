// The agent's version, reported at enrollment and in status.
export const AGENT_VERSION = '0.1.0';
