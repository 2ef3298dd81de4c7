import { fieldError } from '@promptpix/core';
import type { ModelRegistry } from '@promptpix/models';

export type ServedModels = Pick<ModelRegistry, 'defaultId' | 'ids' | 'get'>;

/**
 * The model a request names, as the job stores it: absent for the default (so the default's cache
 * key stays what it was before several models), the id for another; a 400 naming `model` for an
 * id this service does not serve.
 */
export function chosenModel(models: ServedModels, id: string | undefined): string | undefined {
  if (id === undefined || id === models.defaultId) return undefined;
  if (models.ids.includes(id)) return id;
  throw fieldError('model', `Unknown model; GET /v1/models lists the ${models.ids.length === 1 ? 'one model' : `${models.ids.length} models`} served`);
}
