import { Router } from 'express';
import type { RouteGroupDeps } from '../../route-groups';
import { characterRoutes } from './characters';
import { embedRoutes } from './embed';
import { imageInputRoutes } from './image-inputs';
import { imageRoutes } from './images';
import { keyRoutes } from './keys';
import { keyLimitRoutes } from './key-limits';
import { permalinkRoutes } from './permalinks';
import { playgroundRoutes } from './playground';
import { styleRoutes } from './styles';
import { usageRoutes } from './usage';
import { failedJobRoutes } from './failed-jobs';

/** The signed-in JSON API (see @promptpix/contracts, dashboard.ts); mounted behind session, CSRF and approval checks. */
export function dashboardApiRoutes(deps: RouteGroupDeps<'dashboard'>) {
  return Router().use(
    imageRoutes(deps),
    permalinkRoutes(deps),
    keyRoutes(deps),
    keyLimitRoutes(deps),
    characterRoutes(deps),
    styleRoutes(deps),
    usageRoutes(deps),
    embedRoutes(deps),
    playgroundRoutes(deps),
    imageInputRoutes(deps),
    failedJobRoutes(deps),
  );
}
