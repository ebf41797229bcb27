// Public API of version content: preparation (validate, canonicalise, digest) and diffs, shared by the API and the CLI.
export {
  checkVersionInput,
  type PrepareOptions,
  type VersionFileInput,
  type VersionForm,
  type VersionInput,
} from './input';
export { decodeVersionFiles, type PreparedFile } from './files';
export { checkStructure, isStorableText, LONE_SURROGATE, MAX_POLICY_DEPTH } from './structure';
export { prepareVersion, type Preparation, type PreparedVersion } from './prepare';
export {
  diffContent,
  diffFile,
  MAX_DIFF_CONTEXT,
  type ContentDiff,
  type DiffOptions,
  type DiffSide,
  type DiffSideFile,
  type FileDiff,
} from './diff';
