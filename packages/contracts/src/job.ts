import { z } from 'zod';

/** Job as the API shows it: fields appear only once they have a value. */
export interface JobView {
  jobId: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  createdAt: string;
  imageUrl?: string;
  imageId?: string;
  error?: string;
  completedAt?: string;
}

export const generationJobPayloadSchema = z.object({ v: z.literal(1), jobId: z.string().min(1) });
