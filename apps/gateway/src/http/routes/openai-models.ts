import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import type { ServedModels } from '../model-choice';
import { authenticate } from '../middleware/auth';

type Deps = Pick<GatewayDeps, 'credentials' | 'models' | 'now'>;

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
 * The models a caller can name, the default first: MODELS_FILE's ids, or the one model of the
 * single-model variables (its name: `procedural`, `openai:gpt-image-1`, ...).
 */
export const servedModels = (models: Pick<ServedModels, 'ids'>, created: number): OpenAiModel[] =>
  models.ids.map((id) => ({ id, object: 'model', created, owned_by: 'promptpix' }));

/**
 * The model a request names, checked: absent or an alias of OpenAI's (not itself served) is the
 * default (undefined); a served id is itself; else a 400 naming `model`.
 */
export function servedModelOf(id: string | undefined, models: ServedModels): string | undefined {
  if (id === undefined || models.ids.includes(id)) return id;
  if (OPENAI_MODEL_ALIASES.includes(id)) return undefined;
  throw new AppError('invalid_request', 'Invalid request', {
    code: 'model_not_found',
    details: { formErrors: [], fieldErrors: { model: [`The model "${id}" does not exist; GET /v1/models lists the models served`] } },
  });
}

/** GET /v1/models and GET /v1/models/:id (DECISIONS, "OpenAI-compatible surface"): secret key, OpenAI's list and model shapes; errors as openai-errors.ts answers them. */
export const openAiModelRoutes = (deps: Deps) => {
  const created = Math.floor(deps.now().getTime() / 1000);
  return Router()
    .get('/v1/models', authenticate(deps.credentials, { allow: 'secret' }), (_req, res) => {
      res.json({ object: 'list', data: servedModels(deps.models, created) });
    })
    .get('/v1/models/:id', authenticate(deps.credentials, { allow: 'secret' }), (req, res) => {
      const model = servedModels(deps.models, created).find((m) => m.id === req.params.id);
      if (!model) throw new AppError('not_found', `The model "${req.params.id}" does not exist`, { code: 'model_not_found' });
      res.json(model);
    });
};
