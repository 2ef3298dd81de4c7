import { Router } from 'express';
import { z } from 'zod';
import { AppError, type ImageModel } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate } from '../middleware/auth';

/** One entry of GET /v1/models, in OpenAI's Model shape. */
export const openAiModelSchema = z.object({
  id: z.string().meta({ description: 'What to pass as `model`', example: 'procedural' }),
  object: z.literal('model'),
  created: z.number().int().meta({ description: 'Unix seconds: when this gateway started serving the model' }),
  owned_by: z.string(),
});
export type OpenAiModel = z.infer<typeof openAiModelSchema>;

export const openAiModelListSchema = z.object({ object: z.literal('list'), data: z.array(openAiModelSchema) });

/**
 * OpenAI's own image model ids, accepted as `model` and served by this service's default model, so
 * a tool that hard-codes one works unchanged. Not listed: a client choosing from the list picks ours.
 */
export const OPENAI_MODEL_ALIASES: readonly string[] = ['dall-e-2', 'dall-e-3', 'gpt-image-1', 'gpt-image-1-mini', 'gpt-image-1.5'];

/**
 * The models a caller can name: the running provider's configured model (its name, as the worker
 * reports it: `procedural`, `openai:gpt-image-1`, ...). The one place that grows when several
 * backends are routed by model id.
 */
export const servedModels = (model: Pick<ImageModel, 'name'>, created: number): OpenAiModel[] => [{ id: model.name, object: 'model', created, owned_by: 'promptpix' }];

/** The model a request names, checked: absent, a listed id or an alias of OpenAI's; else a 400 naming `model`. */
export function assertModelServed(id: string | undefined, served: OpenAiModel[]): void {
  if (id === undefined || OPENAI_MODEL_ALIASES.includes(id) || served.some((m) => m.id === id)) return;
  throw new AppError('invalid_request', 'Invalid request', { code: 'model_not_found', details: { formErrors: [], fieldErrors: { model: [`The model "${id}" does not exist; GET /v1/models lists the models served`] } } });
}

/** GET /v1/models and GET /v1/models/:id (DECISIONS, "OpenAI-compatible surface"): secret key, OpenAI's list and model shapes; errors as openai-errors.ts answers them. */
export const openAiModelRoutes = (deps: GatewayDeps) => {
  const created = Math.floor(deps.now().getTime() / 1000);
  return Router()
    .get('/v1/models', authenticate(deps.credentials, { allow: 'secret' }), (_req, res) => {
      res.json({ object: 'list', data: servedModels(deps.model, created) });
    })
    .get('/v1/models/:id', authenticate(deps.credentials, { allow: 'secret' }), (req, res) => {
      const model = servedModels(deps.model, created).find((m) => m.id === req.params.id);
      if (!model) throw new AppError('not_found', `The model "${req.params.id}" does not exist`, { code: 'model_not_found' });
      res.json(model);
    });
};
