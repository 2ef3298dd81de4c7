import type { CharacterInput } from '@promptpix/db';
import type { GatewayDeps } from '../deps';
import { storeReferenceImages } from '../admin/character-images';

type Deps = Pick<GatewayDeps, 'characters' | 'storage'>;

/** Creates a character from reference images (validated and stored first) or a spec sheet. */
export async function createAccountCharacter(deps: Deps, accountId: string, { images, ...input }: CharacterInput & { images?: string[] }) {
  const keys = images ? await storeReferenceImages(deps.storage, images) : [];
  return deps.characters.create(accountId, input, keys);
}

/** Changes one of the account's characters (new images replace the references); null when it has no such character. */
export async function patchAccountCharacter(deps: Deps, accountId: string, id: string, { images, ...input }: Partial<CharacterInput> & { images?: string[] }) {
  const keys = images ? await storeReferenceImages(deps.storage, images) : undefined;
  return deps.characters.update(accountId, id, input, keys);
}
