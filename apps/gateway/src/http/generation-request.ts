import { type GenerationRequest, ImageInputMessages } from '@promptpix/contracts';
import { type EditAsked, type EditInputIds, editRefusal, fieldError, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../deps';
import { chosenModel } from './model-choice';
import { assertModelTextsAllowed, assertPromptAllowed } from './prompt-safety';

/** What a caller asks a generation for, before its style and its edit's inputs are resolved. */
export type GenerationFields = Omit<GenerationRequest, 'renderStyle' | 'promptTemplate' | 'edit'> & { image?: string | string[]; mask?: string };

/** The ids of an edit's inputs as a caller sends them, or undefined for no edit; a mask alone is a 400 naming `mask`. */
export function editIdsOf(fields: Pick<GenerationFields, 'image' | 'mask'>): EditInputIds | undefined {
  if (fields.image === undefined) {
    if (fields.mask !== undefined) throw fieldError('mask', ImageInputMessages.maskWithoutImage);
    return undefined;
  }
  return { images: Array.isArray(fields.image) ? fields.image : [fields.image], ...(fields.mask && { mask: fields.mask }) };
}

/**
 * A 400 naming `image` or `mask` when `model` (the request's, already checked: undefined for the
 * default) cannot make an edit of this many images, with or without a mask. Cheap: a door that
 * receives the files itself checks it before storing them.
 */
export function assertEditFits(models: GatewayDeps['models'], model: string | undefined, asked: EditAsked): void {
  const served = models.get(model);
  const refused = served && editRefusal(served.id, served.model.edits, asked);
  if (refused) throw fieldError(refused.field, refused.message);
}

/**
 * The checks every generation passes before it starts, in order: the prompt screen (a 400 naming
 * `prompt`), the character is the account's (400 naming `character`), the style is known and
 * allowed on the plan (400 / 403), the model is served (400 naming `model`), the style's template
 * passes the same screen, and an edit's inputs are the account's and fit the model (400 naming
 * `image` or `mask`). Returns the request the job stores. Shared by the public generate, the
 * OpenAI-shaped surface and the dashboard.
 */
export async function checkedGenerationRequest(
  deps: Pick<GatewayDeps, 'promptSafety' | 'characters' | 'styleResolver' | 'models' | 'uploads'>,
  account: { id: string; plan: PlanName },
  fields: GenerationFields,
): Promise<GenerationRequest> {
  const model = chosenModel(deps.models, fields.model);
  assertPromptAllowed(deps.promptSafety, fields.prompt, fields.ageBucket);
  if (fields.character && !(await deps.characters.exists(account.id, fields.character))) throw fieldError('character', 'Unknown character');
  const style = await deps.styleResolver.resolve(account, fields.style);
  assertModelTextsAllowed(deps.promptSafety, { prompt: fields.prompt, promptTemplate: style.promptTemplate, ageBucket: fields.ageBucket });
  const editIds = editIdsOf(fields);
  if (editIds) assertEditFits(deps.models, model, { images: editIds.images.length, mask: !!editIds.mask });
  const edit = editIds && (await deps.uploads.resolveEdit(account.id, editIds));
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
    ...(edit && { edit }),
    ...(fields.background && { background: fields.background }),
  };
}
