// @hookwarden/hook-core: the ZeroCode hooks engine and the policy/bundle contract. This entry lists exactly the names
// other packages use (the API, the agent, the CLI, tests and benches); everything else stays inside the package.
// Subpaths: `@hookwarden/hook-core/cli` (the zerotwo-hooks program and CLI process plumbing) and
// `@hookwarden/hook-core/browser` (browser-safe: canonical JSON and the inventory schema, for the console).
export { HOOK_CORE_VERSION } from './version';
export { HOOK_EVENTS, type HookEvent, type ConfigDiagnostic } from './types';

// --- Engine: discovery and dispatch (the zerotwo-hooks program; benches measure them) ---
export { discoverHooks } from './config';
// TOML with line/column locations (the CLI's GitOps files: policy.toml, groups.toml).
export { parseTomlLocated } from './config';
// The managed layer's gate: the engine holds the layer while its hooks run; the agent switches it only when free.
export {
  LAYER_DIR_NAME,
  LAYER_STATE_FILE,
  LAYER_READERS_DIR,
  type LayerGateState,
  managedLayerProblem,
  holdManagedLayer,
} from './config';
export { dispatch } from './engine';
// The shadow layer (observe mode): where it sits beside requirements.toml and its release file (the agent writes both).
export { shadowRequirementsPath, SHADOW_RELEASE_FILE } from './engine';
export { DEFAULT_SHADOW_GRACE_MS, MAX_SHADOW_GRACE_MS } from './engine/shadow-budget';
export { runCli } from './cli/program';

// --- Policy (requirements.toml): schema, parse, canonical render, lint ---
export {
  PolicyDocumentSchema,
  parsePolicyToml,
  renderPolicyToml,
  lintPolicy,
  unsafeFilePath,
  CONTRACT_VERSION,
} from './policy';

// --- Version content: preparation and diffs (the API's authoring, the CLI's plan) ---
export {
  prepareVersion,
  type PreparedVersion,
  diffContent,
  type DiffSideFile,
  isStorableText,
  LONE_SURROGATE,
} from './versions';

// --- Bundle contract shared by the API and the agent: manifest, verification, content rules, key list, assignment ---
export {
  buildManifest,
  serializeManifest,
  manifestDigest,
  type SignedBundle,
  verifyBundle,
  verifyShadowBundle,
  BundleRejected,
  type VerifiedBundle,
  type BundleLayer,
  bundleSigningText,
  shadowRequirementsToml,
  checkBundleText,
  MAX_BUNDLE_FILES,
  MAX_BUNDLE_FILE_BYTES,
  MAX_REQUIREMENTS_BYTES,
  fileSha256,
  versionDigest,
  keyListSchema,
  keyListSigningPayload,
  type KeyList,
  trustedKeySchema,
  type TrustedKey,
  ASSIGNMENT_KIND,
  type AssignmentStatement,
  assignmentText,
  parseAssignment,
  verifyAssignment,
  verifySignedText,
  signedStatementSchema,
  type SignedStatement,
} from './bundle';
export { canonicalJson } from './trust';

// --- Endpoint identity: the endpoint key (the agent makes it; proofs are verified with it) ---
// --- Endpoint identity: the endpoint key's proofs, request signatures and sealed session keys (agent signs, API verifies) ---
export {
  endpointKeyId,
  endpointPublicKeyPem,
  enrollProofPayload,
  migrateProofPayload,
  reenrollProofPayload,
  secretSha256,
  MAX_PROOF_CHARS,
  MAX_PUBLIC_KEY_PEM_CHARS,
  parseEndpointPublicKey,
  signEndpointProof,
  verifyEndpointProof,
  contentDigest,
  MAX_CLOCK_SKEW_SEC,
  newNonce,
  parseContentDigest,
  parseSignatureHeaders,
  signatureBase,
  signRequest,
  splitTarget,
  verifyEd25519Signature,
  verifyHmacSignature,
  type ParsedSignature,
  type SignatureAlg,
  newSessionEphemeral,
  openSessionKey,
  sealSessionKey,
  type SealedSessionKey,
} from './identity';

// --- API↔agent wire: the error body and the status-report limits ---
export * from './wire'; // its index lists exactly the wire names other packages use

// --- Hook inventory and release impact preview ---
export {
  inventoryDocumentSchema,
  inventoryHookSchema,
  type InventoryDocument,
  type InventoryHook,
  MAX_INVENTORY_BYTES,
  collectInventory,
  type InventoryHome,
  inventoryDigest,
  inventorySummary,
  type InventorySummary,
  type EndpointImpact,
  previewRelease,
  releaseCanSuppress,
} from './inventory';

// --- Run records: schema, capture settings, the spool ---
export {
  runRecordSchema,
  type RunRecord,
  sha256Hex,
  captureSettingsSchema,
  type CaptureSettings,
  DEFAULT_CAPTURE_SETTINGS,
  redactPatternError,
  SpoolSink,
  readSpoolState,
  listClosedSegments,
} from './record';
