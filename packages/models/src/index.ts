export { createModel, modelProviders, type ModelConfig, type ModelProvider } from './create-model';
export { createProceduralModel, type ProceduralModelOptions } from './procedural';
export * from './providers';
export * from './encode';
export * from './previews';
export * from './meaning';
export * from './registry';
export * from './backend-limits';
export { loadSharp } from './sharp';
