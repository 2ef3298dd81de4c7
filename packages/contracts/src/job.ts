import { z } from 'zod';

export const generationJobPayloadSchema = z.object({ v: z.literal(1), jobId: z.string().min(1) });
