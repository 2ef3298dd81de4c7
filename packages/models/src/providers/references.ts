import type { ImageModel, ModelImage, ModelRequest } from '@promptpix/core';

/** A model that can also draw from reference images (a character's pictures). */
export interface ReferenceImageModel extends ImageModel {
  /** Like generate(), guided by `references` (encoded images, at least one). */
  generateWithReferences(request: ModelRequest, references: Buffer[], signal?: AbortSignal): Promise<ModelImage>;
}

export const supportsReferences = (model: ImageModel): model is ReferenceImageModel =>
  typeof (model as Partial<ReferenceImageModel>).generateWithReferences === 'function';
