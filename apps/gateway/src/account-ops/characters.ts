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
  const full = () => new AppError('conflict', `An account may hold at most ${deps.maxCharactersPerAccount} characters: delete one first`);
  // Counted first so a full account never has its photos decoded; counted again, locked, as it is created.
  if ((await deps.characters.countForAccount(accountId)) >= deps.maxCharactersPerAccount) throw full();
  const keys = images ? await storeReferenceImages(deps.storage, images) : [];
  const created = await deps.characters.createWithin(accountId, input, keys, deps.maxCharactersPerAccount);
  if (!created) throw full();
  return created;
}

/** Changes one of the account's characters (new images replace the references); null when it has no such character. */
export async function patchAccountCharacter(deps: Deps, accountId: string, id: string, { images, ...input }: Partial<CharacterInput> & { images?: string[] }) {
  const keys = images ? await storeReferenceImages(deps.storage, images) : undefined;
  return deps.characters.update(accountId, id, input, keys);
}
