// Public API of the bundle contract: manifest schema and digest, the signed key list, the content rules, the
// version content digest.
export {
  buildManifest,
  bundleManifestSchema,
  manifestDigest,
  manifestFileSchema,
  serializeManifest,
  signedBundleSchema,
  type BuildManifestInput,
  type BundleManifest,
  type ManifestFile,
  type SignedBundle,
} from './manifest';
export {
  KEY_LIST_KIND,
  keyListSchema,
  keyListSigningPayload,
  trustedKeySchema,
  type KeyList,
  type TrustedKey,
} from './key-list';
export {
  ASSIGNMENT_KIND,
  assignmentStatementSchema,
  assignmentText,
  parseAssignment,
  signedStatementSchema,
  verifyAssignment,
  verifySignedText,
  type AssignmentStatement,
  type SignedStatement,
} from './assignment';
export {
  checkBundleContent,
  checkBundleText,
  fileModeProblem,
  filePathProblem,
  foldFilePath,
  managedDirProblem,
  MANAGED_LOCATIONS,
  MAX_BUNDLE_FILE_BYTES,
  MAX_BUNDLE_FILES,
  MAX_BUNDLE_TOTAL_BYTES,
  MAX_FILE_PATH_BYTES,
  MAX_FILE_PATH_DEPTH,
  MAX_MANAGED_DIR_BYTES,
  MAX_REQUIREMENTS_BYTES,
  MAX_SEGMENT_BYTES,
  type BundleContentInput,
  type BundleContentOptions,
  type ContentFile,
  type ContentProblem,
  type ManagedLocations,
  type ManagedPlatform,
  type BundleLayer,
  SHADOW_MANAGED_DIRS,
} from './content';
export { bundleSigningText, SHADOW_SIGNING_CONTEXT, shadowPolicyDocument, shadowRequirementsToml } from './shadow';
export { fileSha256, versionDigest, type DigestFile } from './version-digest';
export {
  BundleRejected,
  managedDirOf,
  verifyBundle,
  verifyShadowBundle,
  type VerifiedBundle,
  type VerifiedFile,
} from './verify';
