import { randomInt } from 'node:crypto';
import { Router, type Response } from 'express';
import { encodeCursor, ErrorMessages, imageListQuerySchema, imagePermalinkSchema } from '@promptpix/contracts';
import { AppError, isUuid, toJobView, type PlanName } from '@promptpix/core';
import type { ImageRepository } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { checkedGenerationRequest } from '../../http/generation-request';
import { applyImageFlag, type ImageFlag } from '../../http/routes/images';
import { findOwnJob } from '../../http/routes/jobs';
import { parseOrThrow } from '../../http/validate';
import type { ImageDetail, ImageDownload, ImagePage, ImageSummary, RegenerateAccepted } from '@promptpix/contracts';
import { signedIn } from '../session';
import { dashboardCaller } from './account';
import { permalinkView } from './permalinks';

type Deps = Pick<
  GatewayDeps,
  | 'activeJobsPerKey'
  | 'characters'
  | 'events'
  | 'generations'
  | 'imageFlags'
  | 'images'
  | 'invalidation'
  | 'jobStore'
  | 'models'
  | 'permalinks'
  | 'promptSafety'
  | 'publicBaseUrl'
  | 'storage'
  | 'styleResolver'
  | 'uploads'
>;

type ImageRow = NonNullable<Awaited<ReturnType<ImageRepository['findById']>>>;
type Format = ImageSummary['format'];

const FORMAT_LABEL: Record<string, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP' };

const summaryOf = (deps: Pick<GatewayDeps, 'storage'>, image: ImageRow, permalinks: string[]): ImageSummary => ({
  id: image.id,
  prompt: image.prompt,
  style: image.style,
  width: image.width,
  height: image.height,
  format: image.format as Format,
  url: deps.storage.publicUrl(image.storageKey),
  createdAt: image.createdAt.toISOString(),
  pinned: image.pinned,
  rejected: image.rejected,
  permalinks,
});

const downloadOf = (deps: Pick<GatewayDeps, 'storage'>, image: ImageRow, label: string): ImageDownload => ({
  label,
  width: image.width,
  height: image.height,
  format: image.format as Format,
  url: deps.storage.publicUrl(image.storageKey),
});

const notFound = () => new AppError('not_found', ErrorMessages.imageNotFound);

/** One of the account's images, or a 404 (another account's, unknown, malformed id). */
async function ownImage(deps: Deps, accountId: string, id: string) {
  const image = isUuid(id) ? await deps.images.findOwnedWithPermalinks(id, accountId) : null;
  if (!image) throw notFound();
  return image;
}

async function detailOf(deps: Deps, accountId: string, id: string): Promise<ImageDetail> {
  const image = await ownImage(deps, accountId, id);
  const variants = await deps.images.variantsOf(image.id, accountId);
  return {
    ...summaryOf(
      deps,
      image,
      image.permalinks.map((p) => p.permalink.name),
    ),
    negativePrompt: image.negativePrompt,
    seed: image.seed.toString(),
    characterId: image.characterId,
    downloads: [
      downloadOf(deps, image, 'Original'),
      ...variants.map((v) => downloadOf(deps, v, `${v.width}×${v.height} ${FORMAT_LABEL[v.format] ?? v.format.toUpperCase()}`)),
    ],
  };
}

const sendDetail = async (deps: Deps, res: Response, id: string) => {
  res.setHeader('Cache-Control', 'no-store');
  res.json(await detailOf(deps, signedIn(res).account.id, id));
};

/** The dashboard's images (see @promptpix/contracts, dashboard.ts): the same flags, permalinks and generation service as the public and operator APIs. */
export function imageRoutes(deps: Deps) {
  const router = Router();

  router.get('/dashboard/api/images', async (req, res) => {
    const query = parseOrThrow(imageListQuerySchema, req.query);
    const { account } = signedIn(res);
    const { images, hasMore } = await deps.images.listForAccount({ accountId: account.id, ...query });
    const last = images.at(-1);
    const page: ImagePage = {
      images: images.map((image) =>
        summaryOf(
          deps,
          image,
          image.permalinks.map((p) => p.permalink.name),
        ),
      ),
      nextCursor: hasMore && last ? encodeCursor(last) : null,
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(page);
  });

  router.get('/dashboard/api/images/:id', (req, res) => sendDetail(deps, res, req.params.id));

  for (const flag of ['pin', 'unpin', 'reject'] as const satisfies ImageFlag[]) {
    router.post(`/dashboard/api/images/:id/${flag}`, async (req, res) => {
      await applyImageFlag(deps, signedIn(res).account.id, req.params.id as string, flag);
      await sendDetail(deps, res, req.params.id as string);
    });
  }

  router.post('/dashboard/api/images/:id/permalink', async (req, res) => {
    const { name } = parseOrThrow(imagePermalinkSchema, req.body);
    const { account } = signedIn(res);
    const id = req.params.id;
    if (!isUuid(id) || !(await deps.permalinks.addImageByName(account.id, name, id))) throw notFound();
    await deps.invalidation.publish({ kind: 'permalinks', accountId: account.id });
    const [row] = await deps.permalinks.listForAccount(account.id, name);
    res.json(permalinkView(deps, account.handle, row));
  });

  /**
   * A new take of the image: its prompt, style, size, format, character and negative prompt with a
   * fresh random seed (so never the cached image), through the same checks and generation service
   * as POST /api/v1/generate; a fresh generation costs a quota unit (402 when none is left). The new
   * image joins the original's permalinks when the worker saves it.
   */
  router.post('/dashboard/api/images/:id/regenerate', async (req, res) => {
    const { account } = signedIn(res);
    const image = await ownImage(deps, account.id, req.params.id);
    const request = await checkedGenerationRequest(
      deps,
      { id: account.id, plan: account.plan as PlanName },
      {
        prompt: image.prompt,
        style: image.style ?? undefined,
        strength: image.strength,
        character: image.characterId ?? undefined,
        width: image.width,
        height: image.height,
        format: image.format as Format,
        ageBucket: (image.ageBucket ?? undefined) as 'kids' | 'bigkids' | 'adults' | undefined,
        seed: randomInt(2 ** 32),
        negativePrompt: image.negativePrompt ?? undefined,
        // Made by the model that made the original (a 400 naming `model` if it is no longer served).
        model: image.model ?? undefined,
      },
    );
    const permalinkIds = image.permalinks.map((p) => p.permalinkId);
    const { job } = await deps.generations.start(account, request, { caller: dashboardCaller(deps, account), addToPermalinks: permalinkIds });
    // A stored image under the same seed answered at once: no worker will add it, so add it here.
    if (job.status === 'completed' && job.imageId && permalinkIds.length > 0) {
      await deps.permalinks.addImageToMany(account.id, permalinkIds, job.imageId);
      await deps.invalidation.publish({ kind: 'permalinks', accountId: account.id });
    }
    const body: RegenerateAccepted = { jobId: job.jobId, permalinks: image.permalinks.map((p) => p.permalink.name) };
    res.status(202).json(body);
  });

  router.get('/dashboard/api/jobs/:jobId', async (req, res) => {
    const job = await findOwnJob(deps, signedIn(res).account.id, req.params.jobId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(toJobView(job));
  });

  return router;
}
