// Where the read-only shared material (spec, vectors, corpus) lives: `../shared` beside the repository.
import path from 'node:path';

/** The shared folder (override with HW_SHARED_DIR). */
export const SHARED_DIR = process.env.HW_SHARED_DIR ?? path.resolve(__dirname, '../../../shared');

/** Real-world hook configurations. */
export const CORPUS_DIR = path.join(SHARED_DIR, 'corpus', 'hooks');

/** Reference-engine trust hash vectors. */
export const TRUST_VECTORS_FILE = path.join(SHARED_DIR, 'vectors', 'trust-hashes.json');
