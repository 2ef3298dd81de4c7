export { PermanentModelError } from './errors';
export { supportsReferences, type ReferenceImageModel } from './references';
export type { RetryOptions } from './http';
export { createOpenAIModel, nearestSize, DEFAULT_OPENAI_SIZES, type OpenAIModelConfig } from './openai';
export { createReplicateModel, nearestAspectRatio, type ReplicateModelConfig } from './replicate';
export { createA1111Model, a1111Size, type A1111ModelConfig } from './a1111';
export { promptFor } from './prompt';
export { createComfyUIModel, comfyErrorMessage, type ComfyUIModelConfig } from './comfyui';
export { inferPlacements, parseNodeMapping, parseWorkflow, resolvePlacements, type ComfyWorkflow, type NodeMapping, type Placements } from './comfyui-workflow';
