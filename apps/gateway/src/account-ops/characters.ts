import { AppError } from '@promptpix/core';
import type { CharacterInput } from '@promptpix/db';
import type { GatewayDeps } from '../deps';
import { storeReferenceImages } from '../admin/character-images';

type Deps = Pick<GatewayDeps, 'characters' | 'storage' | 'maxCharactersPerAccount'>;

/**
 * Creates a character from reference images (validated and stored first) or a spec sheet. Photos
 * are bounded per request (10 images of 8 MB, read only after auth) and per account: at most
 * MAX_CHARACTERS_PER_ACCOUNT characters (409), checked before any image is decoded or stored.
 */
export async function createAccountCharacter(deps: Deps, accountId: string, { images, ...input }: CharacterInput & { images?: string[] }) {
  if ((await deps.characters.countForAccount(accountId)) >= deps.maxCharactersPerAccount) {
    throw new AppError('conflict', `An account may hold at most ${deps.maxCharactersPerAccount} characters: delete one first`);
  }
  const keys = images ? await storeReferenceImages(deps.storage, images) : [];
  return deps.characters.create(accountId, input, keys);
}

/** Changes one of the account's characters (new images replace the references); null when it has no such character. */
export async function patchAccountCharacter(deps: Deps, accountId: string, id: string, { images, ...input }: Partial<CharacterInput> & { images?: string[] }) {
  const keys = images ? await storeReferenceImages(deps.storage, images) : undefined;
  return deps.characters.update(accountId, id, input, keys);
}
