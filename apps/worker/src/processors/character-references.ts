import { createHash } from 'node:crypto';
import {
  chooseCharacterReference,
  PermanentJobError,
  preparedReferenceKey,
  type CharacterReferenceInput,
  type ImageModel,
  type SingleFlight,
  type Storage,
} from '@promptpix/core';
import type { CharacterRepository } from '@promptpix/db';
import type { Logger } from '@promptpix/runtime';

export interface CharacterReferencesDeps {
  characters: CharacterRepository;
  storage: Storage;
  model: ImageModel;
  singleFlight: SingleFlight;
  logger: Logger;
  /** How long a job waits for another worker's preparation of the same reference. */
  waitForPreparationMs?: number;
}

export interface CharacterForScene {
  input: CharacterReferenceInput;
  /** Set when the scene uses a prepared family reference. */
  prepared?: { family: string; reused: boolean; ms: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function loadAll(storage: Storage, keys: string[]): Promise<Buffer[]> {
  const images = await Promise.all(keys.map((k) => storage.get(k)));
  if (images.some((i) => i === null)) throw new Error('A reference image of the character is missing from storage');
  return images as Buffer[];
}

/**
 * The character step of a generation: pick original or family references (pure rule in core);
 * on the first use of a family, prepare the reference once (single flight across workers) and
 * keep it for later scenes until the character's sources change.
 */
export function createCharacterReferences(d: CharacterReferencesDeps) {
  const waitMs = d.waitForPreparationMs ?? 120_000;

  async function prepare(
    characterId: string,
    family: string,
    version: number,
    original: CharacterReferenceInput,
    seed: number,
  ): Promise<{ key: string; reused: boolean }> {
    const flightKey = `prepare:${preparedReferenceKey(characterId, family, version)}`;
    const owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const existing = await d.characters.findPrepared(characterId, family, version);
      if (existing) return { key: existing.storageKey, reused: true };
      const holder = await d.singleFlight.claim(flightKey, owner, Math.ceil(waitMs / 1000));
      if (holder === null) {
        try {
          const again = await d.characters.findPrepared(characterId, family, version);
          if (again) return { key: again.storageKey, reused: true };
          const prepared = await d.model.prepareReference!({ character: original, family, seed });
          const key = `references/${createHash('sha256').update(prepared.data).digest('hex')}.png`;
          await d.storage.put(key, prepared.data, 'image/png');
          await d.characters.savePrepared(characterId, family, version, key);
          return { key, reused: false };
        } catch (error) {
          throw new Error(`Preparing the character reference failed: ${(error as Error).message}`);
        } finally {
          await d.singleFlight.release(flightKey, owner);
        }
      }
      // Another worker is preparing it: wait for its result (or for it to give up, then try ourselves).
      if (Date.now() > deadline) throw new Error('Timed out waiting for the character reference to be prepared');
      await sleep(100);
    }
  }

  return {
    async forScene(characterId: string, sceneStyle: string | undefined, seed: number): Promise<CharacterForScene> {
      const character = await d.characters.forGeneration(characterId, null);
      if (!character) throw new PermanentJobError('The character no longer exists');
      const original: CharacterReferenceInput = {
        name: character.name,
        specSheet: character.specSheet ?? undefined,
        images: await loadAll(
          d.storage,
          character.references.map((r) => r.storageKey),
        ),
      };
      const choice = chooseCharacterReference(character, sceneStyle);
      if (choice.source === 'original' || !d.model.prepareReference) return { input: original };
      const started = Date.now();
      const { key, reused } = await prepare(character.id, choice.family, character.sourceVersion, original, seed);
      const [image] = await loadAll(d.storage, [key]);
      return { input: { ...original, images: [image] }, prepared: { family: choice.family, reused, ms: Date.now() - started } };
    },
  };
}
