import type { ModelRequest } from '@promptpix/core';
import { applyPromptTemplate } from '@promptpix/core';

/** The prompt a remote model receives: the style's template with `{prompt}` filled in, or the prompt. */
export const promptFor = (request: Pick<ModelRequest, 'prompt' | 'promptTemplate'>): string =>
  request.promptTemplate ? applyPromptTemplate(request.promptTemplate, request.prompt) : request.prompt;
