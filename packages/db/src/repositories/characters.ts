import type { Prisma, PrismaClient } from '../generated/client';
import type { CharacterBehavior } from '../generated/enums';
import { lockAccountFor } from './account-lock';

const insertCharacter = (db: Prisma.TransactionClient, accountId: string, input: CharacterInput, referenceKeys: string[]) =>
  db.character.create({
    data: { accountId, ...input, references: { create: referenceKeys.map((storageKey, position) => ({ storageKey, position })) } },
    include: { _count: { select: { references: true } } },
  });

export interface CharacterInput {
  name: string;
  description?: string | null;
  specSheet?: string | null;
  behavior?: CharacterBehavior;
  lockedStyle?: string | null;
  lockedFamily?: string | null;
}

export const createCharacterRepository = (prisma: PrismaClient) => ({
  /** Creates a character with its (already stored) reference images, in one transaction. */
  create: (accountId: string, input: CharacterInput, referenceKeys: string[]) => insertCharacter(prisma, accountId, input, referenceKeys),

  /** Null when the account already holds `maxCharacters` (counted and inserted under a per-account lock, so concurrent creates never pass the cap together). */
  createWithin: (accountId: string, input: CharacterInput, referenceKeys: string[], maxCharacters: number) =>
    prisma.$transaction(async (tx) => {
      await lockAccountFor(tx, 'characters', accountId);
      if ((await tx.character.count({ where: { accountId } })) >= maxCharacters) return null;
      return insertCharacter(tx, accountId, input, referenceKeys);
    }),

  /** Changes a character; new source images or spec sheet bump its source version (prepared references go stale). */
  update: (accountId: string, id: string, input: Partial<CharacterInput>, referenceKeys?: string[]) =>
    prisma.$transaction(async (tx) => {
      const current = await tx.character.findFirst({ where: { id, accountId } });
      if (!current) return null;
      const sourcesChanged = referenceKeys !== undefined || (input.specSheet !== undefined && input.specSheet !== current.specSheet);
      if (referenceKeys !== undefined) {
        await tx.characterReference.deleteMany({ where: { characterId: id } });
        await tx.characterReference.createMany({ data: referenceKeys.map((storageKey, position) => ({ characterId: id, storageKey, position })) });
      }
      return tx.character.update({
        where: { id },
        data: { ...input, ...(sourcesChanged ? { sourceVersion: { increment: 1 } } : {}) },
        include: { _count: { select: { references: true } } },
      });
    }),

  /** The public list: no reference images, only how many originals there are. */
  list: (accountId: string) =>
    prisma.character.findMany({
      where: { accountId },
      orderBy: { createdAt: 'desc' },
      select: { id: true, name: true, description: true, _count: { select: { references: true } } },
    }),

  /** The dashboard's list: every setting, and how many original reference images. */
  listForAccount: (accountId: string) =>
    prisma.character.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      include: { _count: { select: { references: true } } },
    }),
  /** Returns false when the account has no such character. References and prepared ones go with it. */
  delete: async (accountId: string, id: string) => (await prisma.character.deleteMany({ where: { id, accountId } })).count > 0,
  countForAccount: (accountId: string) => prisma.character.count({ where: { accountId } }),
  exists: async (accountId: string, id: string) => (await prisma.character.count({ where: { id, accountId } })) > 0,

  /** Everything a generation needs: look settings, original references, the prepared one for a family. */
  forGeneration: (id: string, family: string | null) =>
    prisma.character.findUnique({
      where: { id },
      include: {
        references: { orderBy: { position: 'asc' }, select: { storageKey: true } },
        prepared: family ? { where: { family }, select: { family: true, sourceVersion: true, storageKey: true } } : false,
      },
    }),

  savePrepared: (characterId: string, family: string, sourceVersion: number, storageKey: string) =>
    prisma.preparedReference.upsert({
      where: { characterId_family_sourceVersion: { characterId, family, sourceVersion } },
      create: { characterId, family, sourceVersion, storageKey },
      update: {},
    }),

  findPrepared: (characterId: string, family: string, sourceVersion: number) =>
    prisma.preparedReference.findUnique({ where: { characterId_family_sourceVersion: { characterId, family, sourceVersion } } }),
});

export type CharacterRepository = ReturnType<typeof createCharacterRepository>;
