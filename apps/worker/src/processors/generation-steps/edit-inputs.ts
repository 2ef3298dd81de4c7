import { ImageInputMessages } from '@promptpix/contracts';
import { type EditInput, type JobRecord, PermanentJobError, type Storage, uploadStorageKey } from '@promptpix/core';
import { fitEditInputs } from '@promptpix/models';

export interface EditInputsInput {
  storage: Pick<Storage, 'get'>;
}

/**
 * Whether a job of `accountId` may read `storageKey`: its own uploads, or content-addressed images
 * (the upload service resolved those from the account's own Image rows). Never another account's upload.
 */
export const mayReadInput = (accountId: string, storageKey: string): boolean =>
  storageKey === uploadStorageKey(accountId, storageKey.slice(-68, -4))
    ? /^[0-9a-f]{64}$/.test(storageKey.slice(-68, -4))
    : /^images\/[0-9a-f]{64}\.[a-z]+$/.test(storageKey);

/**
 * An edit's inputs for the model (`ModelRequest.edit`): read from storage, scoped to the job's
 * account, and cover-cropped alike to the request's size (the mask keeps its alpha). Undefined for
 * a job that is no edit. A missing input (an upload that expired) fails the job for good.
 */
export async function editInputsOf(d: EditInputsInput, job: JobRecord): Promise<EditInput | undefined> {
  const { edit } = job.request;
  if (!edit) return undefined;
  const read = async (storageKey: string): Promise<Buffer> => {
    if (!mayReadInput(job.accountId, storageKey)) throw new PermanentJobError('Image generation failed: the edit names an input of another account');
    const bytes = await d.storage.get(storageKey);
    if (!bytes) throw new PermanentJobError(ImageInputMessages.inputGone);
    return bytes;
  };
  const images = await Promise.all(edit.images.map((input) => read(input.storageKey)));
  const mask = edit.mask && (await read(edit.mask.storageKey));
  try {
    return await fitEditInputs({ images, ...(mask && { mask }) }, job.request);
  } catch (error) {
    throw new PermanentJobError(`Image generation failed: an input of the edit cannot be decoded (${(error as Error).message.split('\n')[0]})`);
  }
}
