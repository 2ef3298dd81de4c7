/** The model providers a process can run with (`MODEL_PROVIDER`). */
export const modelProviders = ['procedural', 'openai', 'replicate', 'a1111', 'comfyui'] as const;
export type ModelProvider = (typeof modelProviders)[number];
