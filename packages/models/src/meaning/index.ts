export * from './wordnet-embedder';
export { createConceptEncoder, CONCEPTS_VERSION } from './concepts';
export * from './create-embedder';
export * from './openai-embedder';
