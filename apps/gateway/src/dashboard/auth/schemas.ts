import { z } from 'zod';

export const signInRequestSchema = z.object({
  email: z.string().trim().pipe(z.email().max(320)),
});

export const signInConfirmSchema = z.object({
  token: z.string().trim().min(1).max(200),
});
