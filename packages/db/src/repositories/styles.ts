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
  /** Changes one of the account's styles; null when it has no such style. */
  async update(accountId: string, id: string, patch: Partial<NewStyle>) {
    const result = await prisma.style.updateMany({ where: { id, accountId }, data: patch });
    return result.count > 0 ? prisma.style.findFirst({ where: { id, accountId } }) : null;
  },
  /** Returns false when the account has no such style. */
  delete: async (accountId: string, id: string) => (await prisma.style.deleteMany({ where: { id, accountId } })).count > 0,
});

export type StyleRepository = ReturnType<typeof createStyleRepository>;
