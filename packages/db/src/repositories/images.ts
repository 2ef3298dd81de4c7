import type { PrismaClient } from '../generated/client';

export interface NewImage {
  id: string;
  accountId: string;
  prompt: string;
  normalizedPrompt: string;
  style?: string | null;
  strength: number;
  characterId?: string | null;
  ageBucket?: string | null;
  width: number;
  height: number;
  format: string;
  seed: number;
  storageKey: string;
  bytes: number;
  sourceImageId?: string | null;
  jobId?: string | null;
}

export const createImageRepository = (prisma: PrismaClient) => ({
  /** Idempotent by id: a retried job writes the same record instead of a second one. */
  save: (image: NewImage) => prisma.image.upsert({ where: { id: image.id }, create: image, update: {} }),
  findOwned: (id: string, accountId: string) => prisma.image.findFirst({ where: { id, accountId } }),
});

export type ImageRepository = ReturnType<typeof createImageRepository>;
