import type { GenerationRequest } from '@promptpix/contracts';
import { fieldError, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../deps';
import { chosenModel } from './model-choice';
import { assertModelTextsAllowed, assertPromptAllowed } from './prompt-safety';

/** What a caller asks a generation for, before its style is resolved. */
export type GenerationFields = Omit<GenerationRequest, 'renderStyle' | 'promptTemplate'>;

/**
 * The checks every generation passes before it starts, in order: the prompt screen (a 400 naming
 * `prompt`), the character is the account's (400 naming `character`), the style is known and
 * allowed on the plan (400 / 403), the model is served (400 naming `model`), and the style's template passes the same screen. Returns the request the job stores. Shared by the public
 * generate and the dashboard's regenerate.
 */
export async function checkedGenerationRequest(
  deps: Pick<GatewayDeps, 'promptSafety' | 'characters' | 'styleResolver' | 'models'>,
  account: { id: string; plan: PlanName },
  fields: GenerationFields,
): Promise<GenerationRequest> {
  const model = chosenModel(deps.models, fields.model);
  assertPromptAllowed(deps.promptSafety, fields.prompt, fields.ageBucket);
  if (fields.character && !(await deps.characters.exists(account.id, fields.character))) throw fieldError('character', 'Unknown character');
  const style = await deps.styleResolver.resolve(account, fields.style);
  assertModelTextsAllowed(deps.promptSafety, { prompt: fields.prompt, promptTemplate: style.promptTemplate, ageBucket: fields.ageBucket });
  return {
    prompt: fields.prompt,
    ...style,
    character: fields.character,
    strength: fields.strength,
    width: fields.width,
    height: fields.height,
    format: fields.format,
    ageBucket: fields.ageBucket,
    seed: fields.seed,
    negativePrompt: fields.negativePrompt,
    ...(model && { model }),
  };
}
