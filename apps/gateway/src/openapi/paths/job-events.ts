import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ErrorMessages } from '@promptpix/contracts';
import { auth, keyedErrors, notFound } from '../shared';

/** Extension (issue 12): a job's progress as Server-Sent Events instead of polling. */

const EXAMPLE =
  'id: queued-2\nevent: status\ndata: {"jobId":"7c0e…","status":"queued","createdAt":"2026-11-23T07:00:00.000Z","position":2}\n\n' +
  'id: processing\nevent: status\ndata: {"jobId":"7c0e…","status":"processing","createdAt":"2026-11-23T07:00:00.000Z"}\n\n' +
  'event: progress\ndata: {"jobId":"7c0e…","fraction":0.45,"message":"KSampler: step 9/20"}\n\n' +
  ': keep-alive\n\n' +
  'id: completed\nevent: status\ndata: {"jobId":"7c0e…","status":"completed","createdAt":"2026-11-23T07:00:00.000Z","imageUrl":"https://…","imageId":"…","completedAt":"2026-11-23T07:00:12.000Z"}\n\n';

const header = (description: string) => ({ description, required: true, schema: { type: 'string' as const } });

export const jobEventPaths: ZodOpenApiPathsObject = {
  '/api/v1/job/{jobId}/events': {
    get: {
      tags: ['Generation'],
      operationId: 'getJobEvents',
      summary: 'Job progress as Server-Sent Events',
      description:
        'Extension. Each change of the job is an event `status` whose `data` is the job exactly as `GET /api/v1/job/{jobId}` shows it, ' +
        'plus `position` (how many jobs wait ahead of it) while it is queued. The current state comes at once, then each change; ' +
        'a comment `: keep-alive` every 15 s; the response ends after the completed or failed event, when the job expires, or after 10 minutes. ' +
        'Every `status` event has an `id`. While processing, backends that report how far they have got (ComfyUI, A1111/Forge, Replicate) add `progress` events ' +
        '`{ jobId, fraction?, message? }` (fraction 0 to 1), without an `id`, at most about twice a second. Use `?key=` with `EventSource`, which cannot set headers. Not rate limited.',
      security: auth.either,
      requestParams: {
        path: z.object({ jobId: z.string() }),
        header: z.object({
          'Last-Event-ID': z
            .string()
            .optional()
            .meta({ description: 'Sent by EventSource when it reconnects; naming the final state it already has answers 204' }),
        }),
      },
      responses: {
        '200': {
          description: 'The event stream',
          headers: { 'Cache-Control': header('`no-cache`'), 'X-Accel-Buffering': header('`no`: proxies pass events on at once') },
          content: { 'text/event-stream': { schema: { type: 'string' }, example: EXAMPLE } },
        },
        '204': { description: 'Last-Event-ID names the final state the client already has: nothing more will come (EventSource stops reconnecting)' },
        ...keyedErrors,
        '404': notFound(ErrorMessages.jobNotFound, 'Unknown, expired, or belonging to another account; answered before any stream starts'),
      },
    },
  },
};
