// Public API of the requirements.toml policy: schema, parse/validate, canonical render, lint.
export * from './schema';
export { parsePolicyToml, validatePolicyObject, type PolicyParseResult } from './parse';
export { renderPolicyToml } from './render';
export { findTomlComment, TomlFloat } from './toml-values';
export {
  lintPolicy,
  isPosixManagedDir,
  isWindowsAbsolute,
  unsafeFilePath,
  MAX_POLICY_TIMEOUT_SEC,
  type PolicyFile,
  type LintPolicyOptions,
  type LintResult,
} from './lint';
export { CONTRACT_VERSION, CONTRACTS, endpointContract, requiredContract, type ContractVersion } from './contract';
