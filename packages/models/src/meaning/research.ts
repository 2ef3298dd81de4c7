/**
 * `@promptpix/models/meaning-research`: the internals the project's measurement scripts (scripts/meaning-*.ts,
 * scripts/glove-common-directions.ts, scripts/local-model-timing.ts) tune and time. Not for the service's own code.
 */
export { COMMON_DIRECTION_COUNT, HEAD_DIMENSIONS, SIF_A } from './sif';
export { openWordNet } from './wordnet';
export { createCombinedEncoder, EMBEDDED_CALIBRATION } from './embedded-embedder';
export { createConceptEncoder } from './concepts';
export { DEFAULT_WORD_VECTORS_FILE } from './word-vectors';
export { createLocalEmbedder } from './local-embedder';
export { locateLocalModel } from './local-model-files';
