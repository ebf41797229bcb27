// Public API of the bundle contract: manifest schema and digest, the signed key list, the content rules.
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
