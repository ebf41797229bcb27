// Where the read-only shared material (spec, vectors, corpus) lives: HW_SHARED_DIR, else `../shared` beside the
// repository. A clone with nothing beside it skips the suites that read it (global setup says so once); CI=true fails.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The shared folder (override with HW_SHARED_DIR). */
export const SHARED_DIR = path.resolve(process.env.HW_SHARED_DIR ?? path.resolve(__dirname, '../../../shared'));

/** Real-world hook configurations. */
export const CORPUS_DIR = path.join(SHARED_DIR, 'corpus', 'hooks');

/** Reference-engine trust hash vectors. */
export const TRUST_VECTORS_FILE = path.join(SHARED_DIR, 'vectors', 'trust-hashes.json');

/** The hooks specification. */
export const SPEC_FILE = path.join(SHARED_DIR, 'spec', 'zerocode-hooks.md');

/** The shared files the suites read, each of which must exist for them to run. */
export const SHARED_NEEDS = [CORPUS_DIR, TRUST_VECTORS_FILE, SPEC_FILE];

/** Whether the shared material is there (suites reading it use `describe.skipIf(!HAS_SHARED)`). */
export const HAS_SHARED = SHARED_NEEDS.every((p) => existsSync(p));

/** The suites that read the shared material, for the skip notice. */
export const SHARED_SUITES = [
  'libs/hook-core/test/config/corpus.test.ts',
  'libs/hook-core/test/config/spec-examples.test.ts',
  'libs/hook-core/test/engine/corpus.test.ts',
  'libs/hook-core/test/trust/vectors.test.ts',
  'the corpus cases of libs/hook-core/test/policy/policy.test.ts, libs/hook-core/test/trust/store.test.ts and test/api/policies.test.ts',
];
