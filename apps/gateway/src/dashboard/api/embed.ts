import { Router } from 'express';
import { embedElementSchema, previewBodySchema } from '@promptpix/contracts';
import type { PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { parseOrThrow } from '../../http/validate';
import type { EmbedView, PreviewResult } from '@promptpix/contracts';
import { signedIn } from '../session';
import { dashboardCaller } from './account';
import { keyView } from './keys';

type Deps = Pick<GatewayDeps, 'activeJobsPerKey' | 'apiKeys' | 'embed' | 'logger' | 'publicBaseUrl'>;

/** The page script's snippet (packages/embed-client/README.md): the key goes in `data-key`. */
export const snippetTemplate = (scriptUrl: string): string =>
  [`<script src="${scriptUrl}" data-key="{{KEY}}"></script>`, `<img data-service-prompt="a lighthouse at dusk" data-service-style="watercolor" alt="">`].join(
    '\n',
  );

/** What a page needs to embed images, and a preview resolved as the page script would. */
export const embedRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/embed', async (_req, res) => {
      const keys = await deps.apiKeys.listActive(signedIn(res).account.id);
      const scriptUrl = `${deps.publicBaseUrl}/service-client.js`;
      const body: EmbedView = {
        scriptUrl,
        publishableKeys: keys.filter((k) => k.kind === 'publishable').map(keyView),
        snippetTemplate: snippetTemplate(scriptUrl),
      };
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    })
    /** One element through the public embed resolver: the same cache, jobs and quota as POST /api/v1/embed/resolve. */
    .post('/dashboard/api/preview', async (req, res) => {
      const { prompt, style } = parseOrThrow(previewBodySchema, req.body);
      const { account } = signedIn(res);
      const element = embedElementSchema.parse({ id: 'preview', prompt, ...(style !== undefined && { style }) });
      const [result] = await deps.embed.resolve(
        { ...account, plan: account.plan as PlanName },
        [element],
        (error) => deps.logger.error('embed element failed', { error }),
        dashboardCaller(deps, account),
      );
      const body: PreviewResult = { status: result.status };
      if (result.imageUrl) body.imageUrl = result.imageUrl;
      if (result.imageId) body.imageId = result.imageId;
      if (result.jobId) body.jobId = result.jobId;
      if (result.error) body.error = result.error;
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    });
