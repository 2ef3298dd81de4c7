import type { PrismaClient } from '../generated/client';

export interface NewStyle {
  name: string;
  description?: string | null;
  tags?: string[];
  baseStyle?: string | null;
  promptTemplate?: string | null;
}

/** An account's own styles (presets ship with the code). */
export const createStyleRepository = (prisma: PrismaClient) => ({
  create: (accountId: string, style: NewStyle) => prisma.style.create({ data: { accountId, ...style } }),
  listOwn: (accountId: string) => prisma.style.findMany({ where: { accountId }, orderBy: { createdAt: 'desc' } }),
  findOwn: (accountId: string, id: string) => prisma.style.findFirst({ where: { id, accountId } }),
});

export type StyleRepository = ReturnType<typeof createStyleRepository>;
